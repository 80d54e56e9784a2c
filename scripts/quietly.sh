# `quietly WHAT COMMAND [ARG…]`: prints "WHAT… ", runs the command with its output kept aside, then
# prints "done (N s)"; when it fails, "failed:" and the whole output, and exits with its status.
# Sourced by scripts/demo, scripts/setup and scripts/build-pkg, so that a first start shows one line
# per step as it begins and its time when it ends, as cargo and npm do. QUIETLY_INDENT goes before
# each line. A function of several commands chains them with && (or ||): `set -e` does not stop a
# function called as a condition, so a failure in its middle would go unseen.
quietly() {
  local what=$1 start=$SECONDS log status
  shift
  log=$(mktemp)
  printf '%s%s… ' "${QUIETLY_INDENT:-}" "$what"
  if "$@" >"$log" 2>&1; then
    printf 'done (%d s)\n' $((SECONDS - start))
    rm -f "$log"
  else
    status=$?
    printf 'failed:\n\n'
    cat "$log"
    rm -f "$log"
    exit "$status"
  fi
}
