import type { ErrorReason, LedgerhookError, LedgerhookErrorDetails } from '../errors.js';
import { DEFAULT_MOCK_PORT } from '../defaults.js';
import { reasonOf } from '../error-reasons.js';

/**
 * What the user can do about an error, in CLI words (flags, commands). The library throws neutral
 * facts (`details.reason` and the values involved); this table is the only place that turns a
 * reason into flag advice. Keep one entry per reason, grouped by area.
 */
const ADVICE: Partial<Record<ErrorReason, (details: LedgerhookErrorDetails) => string>> = {
  // webhook signing and verification
  missing_webhook_secret: () =>
    'pass --secret-file FILE or --secret, set LEDGERHOOK_WEBHOOK_SECRET, or run `ledgerhook config set webhookSecret`',
  entity_path_not_found: (d) =>
    `if the service serves ${String(d.entity)} elsewhere, set its path: \`ledgerhook config set paths.${String(d.entity)} ${String(d.suggested ?? '/the/path')}\`${d.overridden ? ` (or \`ledgerhook config unset paths.${String(d.entity)}\` for the catalogue's)` : ''}`,
  base_url_not_api_root: (d) =>
    d.suggested
      ? `pass --base-url ${String(d.suggested)} or run \`ledgerhook config set baseUrl ${String(d.suggested)}\``
      : 'pass --base-url (or `ledgerhook config set baseUrl`) with the URL the lists are under, e.g. https://HOST/rest/v5',
  invalid_entity_path: (d) => `give paths.${String(d.entity)} as a path like /expenses/expenses`,
  retry_after_too_long: () => 'raise the wait budget with --max-wait (e.g. --max-wait 30m), or run the sync later',
  redirected: (d) =>
    d.location
      ? `if that is the API root, pass --base-url with it or \`ledgerhook config set baseUrl URL\``
      : 'check --base-url',
  wait_budget_spent: (d) =>
    `the service kept answering 429 or 5xx; raise --max-wait (e.g. --max-wait 30m) or try later${d.status === 429 ? '; `ledgerhook config set rateLimit REQUESTS/SECONDS` (`ledgerhook probe --write` finds it) keeps requests under its limit' : ''}`,
  empty_secret: () => 'write the webhook_secret the API team sent into the file or variable you give',
  invalid_tolerance: () => 'give --tolerance as a whole number of seconds, 0 or more',
  invalid_iat: () => 'give --iat as seconds since the epoch, e.g. 1700000000',
  malformed_token: () => 'pass the bare JWT (three Base64url segments separated by dots)',
  event_without_lifecycle: () => '--event goes with LIFECYCLE_EVENT only',
  missing_event: () => 'pass --event NAME, or give the event name as the type (e.g. INVOICE_VIEWED)',
  entities_without_entity_update: () => '--entities goes with ENTITY_UPDATE only',
  no_entities: () => 'pass --entities with at least one entity name',
  capture_body_truncated: () => 'select other deliveries (--id, --index, --last); this one cannot be replayed',
  resign_without_include: () => '--resign-refused goes with --include-refused',
  nothing_verified_to_replay: (d) =>
    [
      Number(d.refused) > 0 ? '--include-refused sends refused ones with their original token' : '',
      Number(d.unverified) > 0 ? '--include-unverified sends ones captured without a secret' : '',
    ]
      .filter(Boolean)
      .join('; '),
  original_token_not_verified: () =>
    'check that the secret (--secret-file, --env) is the one the deliveries were signed with; --as-captured sends them with their original token, and --id or --last selects others',
  replay_needs_secret: () =>
    'pass --secret-file FILE or set LEDGERHOOK_WEBHOOK_SECRET (or use --as-captured to send the original tokens)',
  edit_needs_one_delivery: () => 'select one delivery with --id or --index (or --last 1)',
  edited_body_invalid: () => 'nothing was sent; run the command again to edit anew',
  editor_failed: () =>
    'set EDITOR (or VISUAL) to an editor that waits until the file is closed, e.g. EDITOR="code --wait"',
  no_receiver_case_left: () => 'loosen --only or --skip',
  invalid_assignment: () => "--set takes path=value, e.g. --set 'eventData.amount=10'",

  // Nothing listens where the local environment points: that is `ledgerhook mock`, not yet started.
  connection_refused: (d) =>
    d.listenDefault
      ? 'start one with `ledgerhook listen` in another terminal (it records where it listens), or give --to URL'
      : // local-environment.ts's address, spelled from defaults.ts: this table loads on every start.
        d.origin === `http://127.0.0.1:${DEFAULT_MOCK_PORT}`
        ? 'that is the local environment (ledgerhook mock): start it with `ledgerhook mock` in another terminal'
        : '',

  // settings
  settings_invalid: () => 'fix the file, or move it away and ledgerhook starts a new one',
  settings_unwritable: () => 'make that directory writable, or choose another with LEDGERHOOK_CONFIG_DIR',
  prompt_cancelled: () => 'nothing was stored',

  // listen and serve
  port_in_use: () => 'choose another with --port (0 picks a free one)',

  // sync and state
  data_file_damaged: () => 'run the sync again with --full to rebuild it from the server',
  dataset_not_synced: () => 'run `ledgerhook sync TARGET` first, with the same --out or --store, --base-url and filter',
  reconcile_document: () => 'a document has no items to compare: `ledgerhook sync` replaces it whole each time',
  reconcile_different: () => '--json lists the ids; --repair applies the difference, `ledgerhook sync --full` rebuilds',
  reconcile_repaired: () =>
    'nothing more to do: a change reached the service without its webhook (`ledgerhook freshness` counts them); --json lists the ids',
  schema_drift: () =>
    'if the new fields and types are expected, run the sync again without --contract freeze: it records them, and later runs compare with those',
  data_file_unreadable: () => 'check its permissions, or run the sync with --full to rebuild it',
  owner_mismatch: () =>
    'give each account (or server) its own --out, or `ledgerhook state reset DATASET` and sync with --full to hand the file over',
  store_owner_mismatch: () =>
    'give each account (or server) its own database or schema in --store, or `ledgerhook state reset DATASET` and sync with --full to hand the data over',
  out_dir_not_writable: () => 'choose a writable directory with --out',
  path_outside_out_dir: () => 'remove the symlink, or choose another --out',
  layout_conflict: () =>
    'move one of them out of the output directory (what is gone is read in full on its next sync), or use another --out',
  not_a_regular_file: () => 'move it away: ledgerhook keeps only regular files there, and starts a new one',
  state_file_invalid: () => 'or point LEDGERHOOK_CONFIG_DIR at another directory',
  state_file_unreadable: () => 'check its permissions, or point LEDGERHOOK_CONFIG_DIR at another directory',
  state_file_unwritable: () => 'make the directory writable, or point LEDGERHOOK_CONFIG_DIR at another one',
  dataset_busy: () =>
    'another run writes this dataset (a `listen --sync` or a `reconcile --repair` on the same --out, a worker on the same --store?); run again once it is done',
  lock_lost: () =>
    'the run was suspended (or the clock jumped) long enough for another run to take its lock; run it again',
  token_rejected: () => 'check --token / --token-file, LEDGERHOOK_TOKEN or `ledgerhook config set token -`',
  access_denied: () =>
    "the token is known but may not read this: check that --token / --token-file, LEDGERHOOK_TOKEN or the stored token is the right user's",
  not_an_envelope: () => 'check the dataset path (`ledgerhook entities` lists them)',
  too_many_pages: () => 'raise --max-pages if the dataset really is that large',
  page_limit_refused: () =>
    'ask for fewer with --limit, or store the size with `ledgerhook config set pageLimit N` (`ledgerhook probe` finds the largest the service accepts)',
  probe_not_ready: (d) =>
    Number(d.writable) > 0 ? 'run `ledgerhook probe --write` to store the settings it found' : '',
  response_too_large: () => 'raise --max-response-bytes, or lower --limit',
  pages_without_progress: () => 'the server keeps sending cursors without new items; report it to the API team',
  cursor_loop: () => 'the server repeats a cursor; report it to the API team',
  id_collision: () => 'the service gives two items ids that read as one (7 and "7"); report it to the API team',
  id_not_exact: () =>
    'the service sends ids as numbers too large to keep exact; report it (ids that large must come as strings)',
  invalid_cursor: () => 'the server sent a cursor that cannot be sent back; report it to the API team',
  bad_user_id: () => 'such a webhook cannot name a user of its own and is not synced',
  invalid_since: () => 'e.g. --since 2026-01-31 or --since 2026-01-31T12:00:00Z',
  since_without_state: () => 'run the sync once without --since (a full read); --since then repairs a window',
  stamp_ahead: () =>
    "ask the service's team why its lastUpdatedDate runs ahead of its clock; if it truly does, allow more with `ledgerhook config set maxStampAhead 48h`",
  // A request that continued an interrupted read, answered with a status not counted as "cursor expired".
  http_status: (d) =>
    typeof d.resumedAtPage === 'number'
      ? `it continued an interrupted full read at page ${d.resumedAtPage}: --no-resume reads from page 1, and \`ledgerhook config set expiredCursorStatuses\` can count that status as an expired cursor`
      : '',

  // mock
  mock_webhook_secret_missing: () => 'give it with --secret, --secret-file or LEDGERHOOK_WEBHOOK_SECRET',

  // record and mock --from
  recording_exists: () => 'give --out a new directory (a recording is never overwritten)',
  recording_full: () => 'stop and start another recording, or raise --max-bytes',
  recording_unreadable: () => 'give --from a directory written by `ledgerhook record --out DIR`',
  replay_secret_not_local: () =>
    'drop --env and --secret: a replay is signed with the local development secret (local-webhook.secret in the config directory), which your app then verifies with',
  invalid_redact_rule: () =>
    'give --redact field names (email,merchant) or JSON paths ($.data[*].note), comma-separated',

  // check-consumer
  mock_port_in_use: () =>
    'stop the `ledgerhook mock` running there (check-consumer serves its own there, so that a consumer set up for it is driven as it is), or give --mock-port N and point your consumer at that port',
  invalid_settle: () => 'give a shorter --settle (or a longer --tolerance, if your receiver has one)',
  consumer_state_invalid: () =>
    'make --state print { "users": { "<userId>": { "/expenses": [ { "id": ... } ] } } } (`ledgerhook check-consumer --help`)',
  consumer_state_failed: () => 'run the --state command (or open the URL) on its own to see why',
  consumer_state_too_large: () => 'make --state print only the datasets of the user the check drives',

  // inspector (listen --ui, inspect)
  inspector_port_in_use: () => 'choose another with --ui-port for listen or --port for inspect (0 picks a free one)',
  inspector_bind_failed: () => 'give --ui-host (listen) or --host (inspect) an address of this machine',

  // scale: queue, workers and the Postgres store
  store_url_invalid: () => 'pass --store postgres://USER@HOST:PORT/DB (or set LEDGERHOOK_STORE)',
  store_unreachable: () => 'check that Postgres runs and that --store (or LEDGERHOOK_STORE) points at it',
  store_failed: () => 'run `ledgerhook store migrate --store URL` and check the database user may write there',
  store_login_failed: (d) =>
    d.userInUrl
      ? 'check the user and password in --store (or LEDGERHOOK_STORE): postgres://USER:PASSWORD@HOST:PORT/DB'
      : 'put the database user in --store (or LEDGERHOOK_STORE): postgres://USER@HOST:PORT/DB',
  store_token_changed: () => 'run `ledgerhook state reset` for it (or sync with --full) to rebuild it with this token',
  store_state_missing: () => 'sync it once with --full',
  store_value_invalid: () => 'such a user cannot be synced into Postgres',
  item_not_storable: () =>
    'the service sends an item this Postgres database cannot hold; a file store (--out DIR) keeps any item, or ask the API team',
  queue_url_invalid: () => 'pass --queue redis://HOST:PORT (or set LEDGERHOOK_QUEUE)',
  queue_name_invalid: () => 'choose another --queue-name',
  queue_unreachable: () => 'check that Redis runs and that --queue (or LEDGERHOOK_QUEUE) points at it',
};

/** The error's message followed by the advice for its reason, if any: one line. */
export function withAdvice(error: LedgerhookError): string {
  const reason = reasonOf(error);
  const advice = reason === undefined ? undefined : ADVICE[reason]?.(error.details);
  return advice ? `${error.message}; ${advice}` : error.message;
}
