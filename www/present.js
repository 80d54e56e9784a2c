// What the page shows, kept apart from the DOM: how the form's text becomes a NewPlant, and how a
// PlantStoreError reads for a person. Pure functions, no I/O.

/** The plant fields of the form, in the order they appear. */
export const PLANT_FIELDS = ['id', 'name', 'tag'];

/**
 * The id box's text as the id to send. Digits (with an optional leading minus) become a BigInt, so
 * `9007199254740993` keeps every digit; nothing goes through Number. An empty box leaves the id out
 * (validateNewPlant reports it as required); any other text is passed on as the string it is, and
 * validateNewPlant reports that an id must be an integer.
 */
export function parseId(text) {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^-?\d+$/.test(trimmed) ? BigInt(trimmed) : trimmed;
}

/** The form's text as a NewPlant candidate: an empty box means the field is left out. */
export function readPlant({ id, name, tag }) {
  const plant = {};
  const parsedId = parseId(id);
  if (parsedId !== undefined) plant.id = parsedId;
  if (name !== '') plant.name = name;
  if (tag !== '') plant.tag = tag;
  return plant;
}

/** Issues grouped by field; issues about anything else (the value as a whole) under `form`. */
export function groupIssues(issues) {
  const byField = { form: [] };
  for (const issue of issues) {
    const key = PLANT_FIELDS.includes(issue.path) ? issue.path : 'form';
    byField[key] ??= [];
    byField[key].push(issue.message);
  }
  return byField;
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/**
 * A PlantStoreError (or anything else thrown) as a card: `title`, a `text` sentence, the server's or
 * client's `message`, `details` rows (kind; status and code for a refusal) and what to `advice`. The error's message
 * never holds the token (the client redacts it), and nothing here adds it.
 */
export function describeError(err, { baseUrl }) {
  if (err === null || typeof err !== 'object' || typeof err.kind !== 'string') {
    return {
      title: 'Something unexpected went wrong',
      text: 'The page met an error that is not a PlantStoreError.',
      message: String(err?.message ?? err),
      details: [],
      advice: 'Reload the page and try again.',
    };
  }
  const details = [['Kind', err.kind]];
  // The client's own messages name the status and the code ("the Plant Store answered 401 (error
  // 4): …"); a refusal's message is the store's own words, so only it gets them as rows.
  if (err.kind === 'rejected') {
    if (err.status !== undefined) details.push(['HTTP status', String(err.status)]);
    if (err.code !== undefined) details.push(['Error code', String(err.code)]);
  }
  const card = { message: err.message, details };
  switch (err.kind) {
    case 'validation':
      return {
        ...card,
        title: 'Check the highlighted fields',
        text: `${plural(err.issues?.length ?? 0, 'field has a problem', 'problems were found')}. Nothing was sent.`,
        message: undefined,
        advice: undefined,
      };
    case 'rejected':
      return {
        ...card,
        title: 'The Plant Store refused this plant',
        text: 'The store gave this reason:',
        advice: 'Change the plant (for example, pick another id) and try again.',
      };
    case 'network':
      if (err.cause?.message) details.push(['Browser says', String(err.cause.message)]);
      return {
        ...card,
        title: 'Could not reach the Plant Store',
        text: `No answer came from ${baseUrl}: the server may be stopped, or the address is wrong.`,
        message: undefined,
        advice: 'Start the server again (scripts/demo) or check the base URL.',
      };
    case 'timeout':
      return {
        ...card,
        title: 'The Plant Store did not answer in time',
        text: 'The call was given up after its time limit.',
        advice: 'Try again in a moment.',
      };
    case 'aborted':
      return {
        ...card,
        title: 'The call was cancelled',
        text: 'It was stopped before an answer arrived.',
      };
    case 'config':
      return {
        ...card,
        title: 'The connection settings cannot be used',
        text: 'Nothing was sent. The client says:',
        advice: 'Fix the base URL or the token under “Connection”.',
      };
    case 'unauthorized':
    case 'unexpected_status':
      if (err.status === 401 || err.status === 403) {
        return {
          ...card,
          title: 'The Plant Store did not accept the token',
          text: 'It refused it with this reason:',
          advice: 'Check the token under “Connection”: scripts/demo prints the right one.',
        };
      }
      return {
        ...card,
        title: 'The Plant Store gave an unexpected answer',
        text: 'It answered with a status the contract does not describe:',
        advice: 'Check the base URL: it should point at a Plant Store.',
      };
    case 'invalid_response':
      return {
        ...card,
        title: 'The Plant Store’s answer could not be read',
        text: 'The answer does not match the contract:',
        advice: 'Check the base URL: it should point at a Plant Store.',
      };
    default:
      return { ...card, title: 'The call failed', text: `The client reported “${err.kind}”:` };
  }
}

/** The attempts of a call, as the client's afterAttempt saw them: "2 attempts: 503 → 200". */
export function attemptsText(attempts) {
  return `${plural(attempts.length, 'attempt', 'attempts')}: ${attempts.join(' → ')}`;
}

/** A one-line summary of a call for the history. */
export function summarize(outcome) {
  if (outcome.plant) return { tone: 'ok', text: `Created “${outcome.plant.name}”` };
  const err = outcome.error;
  switch (err?.kind) {
    case 'validation':
      return {
        tone: 'muted',
        text: `Not sent: ${plural(err.issues?.length ?? 0, 'field problem', 'field problems')}`,
      };
    case 'rejected':
      return { tone: 'bad', text: `Refused: ${err.message}` };
    case 'network':
      return { tone: 'bad', text: 'Could not reach the Plant Store' };
    case 'timeout':
      return { tone: 'bad', text: 'No answer in time' };
    case 'aborted':
      return { tone: 'muted', text: 'Cancelled' };
    case 'config':
      return { tone: 'muted', text: 'Not sent: connection settings' };
    case 'unauthorized':
    case 'unexpected_status':
      return err.status === 401 || err.status === 403
        ? { tone: 'bad', text: 'Token not accepted' }
        : { tone: 'bad', text: `Unexpected status ${err.status}` };
    case 'invalid_response':
      return { tone: 'bad', text: 'Unreadable answer' };
    default:
      return { tone: 'bad', text: 'Failed' };
  }
}
