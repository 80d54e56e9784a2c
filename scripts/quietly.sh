# `quietly WHAT COMMAND [ARG…]`: prints "WHAT… ", runs the command with its output kept aside, then
# prints "done (N s)"; when it fails, "failed:" and the whole output, and exits with its status.
# On a terminal the line also counts the seconds while the command runs, and names the crate cargo
# is compiling, as cargo's own progress bar does.
# Sourced by scripts/demo, scripts/setup and scripts/build-pkg, so that a first start shows one line
# per step as it begins and its time when it ends, as cargo and npm do. QUIETLY_INDENT goes before
# each line. A function of several commands chains them with && (or ||): `set -e` does not stop a
# function called as a condition, so a failure in its middle would go unseen.
quietly() {
  local what=$1 start=$SECONDS log status=0
  shift
  log=$(mktemp)
  printf '%s%s… ' "${QUIETLY_INDENT:-}" "$what"
  if [[ -t 1 ]]; then
    "$@" 2>&1 | quietly_watch "$what" "$start" "$log" || status=${PIPESTATUS[0]}
    printf '\r\033[K%s%s… ' "${QUIETLY_INDENT:-}" "$what"
  else
    "$@" >"$log" 2>&1 || status=$?
  fi
  if ((status == 0)); then
    printf 'done (%d s)\n' $((SECONDS - start))
    rm -f "$log"
  else
    printf 'failed:\n\n'
    cat "$log"
    rm -f "$log"
    exit "$status"
  fi
}

# Keeps the command's output in $3 and, every second and on each line, rewrites the step's line
# with the seconds since $2 and the crate cargo compiles.
quietly_watch() {
  local what=$1 start=$2 log=$3 line part='' crate='' read_status
  while true; do
    read_status=0
    IFS= read -r -t 1 line || read_status=$?
    if ((read_status > 128)); then
      part+=$line # a timeout keeps what it read of a line
    elif ((read_status == 0)); then
      line=$part$line
      part=''
      printf '%s\n' "$line" >>"$log"
      if [[ "$line" =~ ^\ *Compiling\ ([^ ]+) ]]; then crate=${BASH_REMATCH[1]}; fi
    else
      # The end of the output, after a last line without a newline, if any.
      line=$part$line
      [[ -z "$line" ]] || printf '%s\n' "$line" >>"$log"
      return 0
    fi
    printf '\r\033[K%s%s… %d s%s' "${QUIETLY_INDENT:-}" "$what" $((SECONDS - start)) "${crate:+, compiling $crate}"
  done
}
