#!/usr/bin/env bash
# The shell steps of the weakscan GitHub Action (action.yml runs `run.sh STEP`, in this order):
#
#   plan     which weakscan runs: the `weakscan` input, the one an earlier use in the job
#            installed, else the action's own version, to be installed into a directory that
#            actions/cache/restore restores (outputs install, weakscan, root, cache-key, ref,
#            repository)
#   install  that directory filled when the cache missed: the release binary of the action's tag
#            (macOS and Linux runners), checked against its .sha256 file, else `cargo install --locked`
#            from the action's own sources (output weakscan); actions/cache/save saves it
#   check    weakscan check: annotations and the job summary (--format github), the Markdown and
#            JSON reports, the figures as step outputs, the HTML report (weakscan report); the
#            Markdown fitted to what the comment's marker and footer leave (--markdown-limit)
#   comment  on a pull request, one comment found by its hidden marker and its author (the
#            token's own login): created, then updated; the report in it is the check's
#            Markdown again with --report-url, so weakscan links the uploaded HTML report after
#            the fix; nothing in it is cut here
#   finish   fails the step with the check's exit code
#
# Every input arrives as an environment variable (action.yml's env:). Needs bash (3.2 will do),
# jq, curl and gh, which GitHub's hosted runners have. tests/action.rs runs these steps with gh,
# curl and cargo replaced by stubs.
set -euo pipefail

# ---- helpers ----

die() {
  echo "weakscan action: $*" >&2
  exit 2
}

# `name=value` to the step outputs; a value is one line.
output() {
  local value="${2//$'\n'/ }"
  printf '%s=%s\n' "$1" "${value//$'\r'/ }" >>"$GITHUB_OUTPUT"
}

# The data of a workflow command (`::error::DATA`), escaped as the runner reads it.
escape_data() {
  local s="${1//%/%25}"
  s="${s//$'\r'/%0D}"
  printf '%s' "${s//$'\n'/%0A}"
}

# SHA-256 as `HASH  FILE` lines (`HASH  -` of stdin): sha256sum (Linux) or shasum (macOS).
if command -v sha256sum >/dev/null; then
  SHA256=(sha256sum)
else
  SHA256=(shasum -a 256)
fi

# An absolute path for a command name or a path (relative to the working directory).
absolute_command() {
  local found
  found=$(command -v "$1") || return 1
  case "$found" in
    /*) printf '%s\n' "$found" ;;
    *) printf '%s/%s\n' "$(cd "$(dirname "$found")" && pwd)" "$(basename "$found")" ;;
  esac
}

# Leading and trailing white space removed.
trim() {
  local s="$1"
  s="${s#"${s%%[![:space:]]*}"}"
  printf '%s' "${s%"${s##*[![:space:]]}"}"
}

# ---- plan ----

step_plan() {
  cd "${INPUT_WORKING_DIRECTORY:-.}" || die "working-directory ${INPUT_WORKING_DIRECTORY}: no such directory"
  command -v jq >/dev/null || die "jq not found (GitHub's hosted runners have it)"
  if [ -n "${INPUT_WEAKSCAN:-}" ]; then
    local bin
    bin=$(absolute_command "$INPUT_WEAKSCAN") || die "input weakscan: ${INPUT_WEAKSCAN}: not found"
    output install false
    output weakscan "$bin"
    return
  fi
  local ref="${ACTION_REF:-}" repository="${ACTION_REPOSITORY:-}"
  # A composite action may see github.action_ref empty (actions/runner#2473): a remote action
  # sits in …/_actions/OWNER/REPO/REF.
  case "$GITHUB_ACTION_PATH" in
    */_actions/*/*/*)
      local tail="${GITHUB_ACTION_PATH#*/_actions/}"
      [ -n "$ref" ] || ref="${tail#*/*/}"
      [ -n "$repository" ] || repository="${tail%%/*}/$(echo "$tail" | cut -d / -f 2)"
      ;;
  esac
  local sources root
  # The action's sources, hashed: a moving ref (a branch, a major-version tag) gets a new key
  # when they change.
  sources=$(cd "$GITHUB_ACTION_PATH" && find Cargo.toml Cargo.lock build.rs src -type f -print0 \
    | LC_ALL=C sort -z | xargs -0 "${SHA256[@]}" | "${SHA256[@]}" | cut -d ' ' -f 1)
  root="${RUNNER_TOOL_CACHE:-$RUNNER_TEMP}/weakscan/${sources:0:16}"
  # An earlier use of the action in this job installed it.
  if "$root/bin/weakscan" --version >/dev/null 2>&1; then
    echo "weakscan already installed: $root/bin/weakscan"
    output install false
    output weakscan "$root/bin/weakscan"
    return
  fi
  output install true
  output ref "$ref"
  output repository "$repository"
  output root "$root"
  output cache-key "weakscan-${RUNNER_OS}-${RUNNER_ARCH}-$(printf '%s' "${ref:-local}" | tr -c 'A-Za-z0-9._-' '_')-${sources:0:16}"
}

# ---- install ----

step_install() {
  if [ "${INSTALL:-}" != true ]; then
    output weakscan "$WEAKSCAN"
    return
  fi
  local bin="$WEAKSCAN_ROOT/bin/weakscan"
  if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
    echo "weakscan from the cache: $bin"
  elif ! download_release "$bin"; then
    build_from_source
  fi
  "$bin" --version
  echo "$WEAKSCAN_ROOT/bin" >>"$GITHUB_PATH"
  output weakscan "$bin"
}

# The release binary `weakscan-TAG-TARGET` of the action's tag (TARGET: aarch64-apple-darwin,
# x86_64-apple-darwin, aarch64-unknown-linux-gnu or x86_64-unknown-linux-gnu, as the release
# workflows build them), checked against `weakscan-TAG-TARGET.sha256`. Returns 1 when there is
# none; a download that does not match its checksum stops the action.
download_release() {
  local target
  case "${RUNNER_OS}/${RUNNER_ARCH}" in
    macOS/ARM64) target=aarch64-apple-darwin ;;
    macOS/X64) target=x86_64-apple-darwin ;;
    Linux/ARM64) target=aarch64-unknown-linux-gnu ;;
    Linux/X64) target=x86_64-unknown-linux-gnu ;;
    *) return 1 ;;
  esac
  case "$WEAKSCAN_REF" in
    v[0-9]*) ;;
    *) return 1 ;;
  esac
  local asset="weakscan-${WEAKSCAN_REF}-${target}"
  local url="${GITHUB_SERVER_URL:-https://github.com}/${WEAKSCAN_REPOSITORY}/releases/download/${WEAKSCAN_REF}/${asset}"
  local tmp
  tmp=$(mktemp -d "${RUNNER_TEMP:-/tmp}/weakscan-download.XXXXXX")
  if ! curl -fsSL --retry 3 -o "$tmp/$asset" "$url" || ! curl -fsSL --retry 3 -o "$tmp/$asset.sha256" "$url.sha256"; then
    echo "weakscan action: no release binary at $url: building from source"
    rm -rf "$tmp"
    return 1
  fi
  local want got
  want=$(cut -d ' ' -f 1 <"$tmp/$asset.sha256")
  got=$("${SHA256[@]}" <"$tmp/$asset" | cut -d ' ' -f 1)
  [ "$want" = "$got" ] || die "$url: SHA-256 $got, but $asset.sha256 says $want"
  mkdir -p "$(dirname "$1")"
  mv "$tmp/$asset" "$1"
  chmod 755 "$1"
  rm -rf "$tmp"
  echo "weakscan $WEAKSCAN_REF from $url"
}

build_from_source() {
  command -v cargo >/dev/null || die "cargo not found: install Rust (rustup), or give the weakscan input"
  echo "weakscan: cargo install --locked from $GITHUB_ACTION_PATH"
  cargo install --locked --force --path "$GITHUB_ACTION_PATH" --root "$WEAKSCAN_ROOT"
}

# ---- check ----

# The arguments of `weakscan check` from the inputs, in the array `args`.
check_args() {
  local limit
  limit=$(markdown_limit)
  [ "$limit" -ge 1000 ] || die "comment-key: too long (its marker leaves $limit bytes of a comment for the report)"
  args=(check "$INPUT_BINARY" --arch "${INPUT_ARCH:-all}" --markdown-limit "$limit")
  [ -z "${INPUT_POLICY:-}" ] || args+=(--config "$INPUT_POLICY")
  [ -z "${INPUT_BASELINE:-}" ] || args+=(--baseline "$INPUT_BASELINE")
  local increases value
  IFS=', ' read -r -a increases <<<"${INPUT_MAX_INCREASE:-}"
  for value in ${increases[@]+"${increases[@]}"}; do
    args+=(--max-increase "$value")
  done
  [ -z "${INPUT_MAX_PREDICTED_WEAK_LOOKUPS:-}" ] || args+=(--max-predicted-weak-lookups "$INPUT_MAX_PREDICTED_WEAK_LOOKUPS")
  [ -z "${INPUT_MAX_WEAK_DEF_EXPORTS:-}" ] || args+=(--max-weak-def-exports "$INPUT_MAX_WEAK_DEF_EXPORTS")
  [ -z "${INPUT_MAX_WEAK_BIND_SYMBOLS:-}" ] || args+=(--max-weak-bind-symbols "$INPUT_MAX_WEAK_BIND_SYMBOLS")
  [ -z "${INPUT_MAX_TRIE_PROBES:-}" ] || args+=(--max-trie-probes "$INPUT_MAX_TRIE_PROBES")
  each_line "${INPUT_GROUPS:-}" --group
  each_line "${INPUT_ALLOW:-}" --allow
  each_line "${INPUT_ARGS:-}" ""
}

# Each non-blank line of $1, trimmed, appended to `args` (after the flag $2, if any).
each_line() {
  local line
  while IFS= read -r line; do
    line=$(trim "$line")
    [ -n "$line" ] || continue
    if [ -n "$2" ]; then
      args+=("$2" "$line")
    else
      args+=("$line")
    fi
  done <<<"$1"
}

step_check() {
  cd "${INPUT_WORKING_DIRECTORY:-.}" || die "working-directory ${INPUT_WORKING_DIRECTORY}: no such directory"
  local dir args=() status=0
  dir=$(mktemp -d "${RUNNER_TEMP:-/tmp}/weakscan.XXXXXX")
  check_args
  # For the comment step, which runs the check again with the report's URL.
  printf '%s\0' "${args[@]}" >"$dir/check-args"
  # Annotations to the log, the Markdown report to the job summary.
  "$WEAKSCAN" "${args[@]}" --format github 2>"$dir/stderr" || status=$?
  cat "$dir/stderr" >&2
  case "$status" in
    0 | 1) check_reports "$dir" "$status" ;;
    *) check_error "$dir" "$status" ;;
  esac
  # Last: the comment and finish steps act only on a check that ran to the end.
  output markdown "$dir/check.md"
  output exit-code "$status"
}

# The Markdown and JSON reports (the same check again, without the job summary), the figures as
# outputs, and the HTML report.
check_reports() {
  local dir="$1" status="$2" again=0
  env -u GITHUB_STEP_SUMMARY "$WEAKSCAN" "${args[@]}" --format markdown -o "$dir/check.md" 2>/dev/null || again=$?
  [ "$again" = "$status" ] || die "weakscan check exited $status, then $again with --format markdown"
  again=0
  env -u GITHUB_STEP_SUMMARY "$WEAKSCAN" "${args[@]}" --format json -o "$dir/check.json" 2>/dev/null || again=$?
  [ "$again" = "$status" ] || die "weakscan check exited $status, then $again with --format json"
  if [ "$status" = 0 ]; then output result pass; else output result fail; fi
  output json "$dir/check.json"
  # Each figure: the largest counted value over the checked slices (none: empty).
  jq -r '
    def most($f): [.images[].figures[] | select(.figure == $f) | .counted] | max // "";
    "predicted-weak-lookups=\(most("predicted_weak_lookups"))",
    "weak-def-exports=\(most("weak_def_exports"))",
    "weak-bind-symbols=\(most("weak_bind_symbols"))",
    "trie-probes=\(most("trie_probes"))",
    "failed-budgets=\([.images[].budgets[] | select(.passed | not)] | length)"
  ' "$dir/check.json" >>"$GITHUB_OUTPUT"
  [ "${INPUT_REPORT:-true}" = true ] && html_report "$dir"
  return 0
}

# weakscan report of the checked binary: the slice given by the arch input, else, of a universal
# file, the first slice that failed (else the first one). A report that cannot be written is a
# warning: the check's verdict stands.
html_report() {
  local dir="$1" arch="${INPUT_ARCH:-all}"
  if [ "$arch" = all ] && [ "$(jq '[.images[].arch] | unique | length' "$dir/check.json")" -gt 1 ]; then
    arch=$(jq -r '([.images[] | select(.passed | not)] + .images)[0].arch' "$dir/check.json")
  fi
  if "$WEAKSCAN" report "$INPUT_BINARY" --arch "$arch" -o "$dir/weakscan-report.html" 2>"$dir/report-stderr"; then
    output report "$dir/weakscan-report.html"
  else
    echo "::warning title=weakscan report::$(escape_data "$(cat "$dir/report-stderr")")"
  fi
}

# Exit code 2 (or any other failure): no report; the error goes to an annotation, the job summary
# and the comment.
check_error() {
  local dir="$1" status="$2" error
  error=$(grep -v '^[[:space:]]*$' "$dir/stderr" | tail -n 1 || true)
  [ -n "$error" ] || error="weakscan exited with code $status and printed no error"
  output result error
  output error "$error"
  echo "::error title=weakscan check could not run::$(escape_data "$error")"
  {
    echo "## ⚠️ weakscan check could not run (exit code $status)"
    echo
    echo "Bad input, policy or usage; no budget was checked:"
    echo
    tail -n 20 "$dir/stderr" | sed 's/^/    /'
  } >"$dir/check.md"
  [ -z "${GITHUB_STEP_SUMMARY:-}" ] || cat "$dir/check.md" >>"$GITHUB_STEP_SUMMARY"
}

# ---- comment ----

# GitHub's limit on a comment's body, in characters ("Body is too long (maximum is 65536
# characters)"); a character is at least one byte, so bytes are counted.
COMMENT_LIMIT=65536

# The hidden marker the comment starts with (a line of its own): `<!-- weakscan-action: KEY -->`.
comment_marker() {
  printf '<!-- weakscan-action: %s -->' "$(printf '%s' "${INPUT_COMMENT_KEY:-weakscan}" | tr -c 'A-Za-z0-9._-' '_')"
}

# The comment's last lines: the commit checked, the HTML report at $1 (when given) and the run.
comment_footer() {
  local sha run="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}/actions/runs/${GITHUB_RUN_ID:-}"
  sha=$(jq -r '.pull_request.head.sha // empty' "${GITHUB_EVENT_PATH:-/dev/null}" 2>/dev/null || true)
  [ -n "$sha" ] || sha="${GITHUB_SHA:-}"
  echo
  printf '<sub>weakscan check of %s' "${sha:0:12}"
  [ -z "$1" ] || printf ' · [HTML report](%s)' "$1"
  printf ' · [workflow run](%s)</sub>\n' "$run"
}

# Bytes weakscan's Markdown may take (--markdown-limit): GitHub's limit less the marker line and
# the footer of a comment whose report links the HTML report itself. weakscan owns the one cut:
# it fits the report to this, cutting whole table rows and saying so.
markdown_limit() {
  local frame
  frame=$({
    comment_marker
    echo
    comment_footer ''
  } | wc -c | tr -d ' ')
  echo $((COMMENT_LIMIT - frame))
}

step_comment() {
  [ -n "${EXIT_CODE:-}" ] || return 0 # the check did not run: the step that failed says why
  [ "${INPUT_COMMENT:-true}" = true ] || return 0
  case "${GITHUB_EVENT_NAME:-}" in
    pull_request | pull_request_target) ;;
    *) return 0 ;;
  esac
  local pr
  pr=$(jq -r '.pull_request.number // empty' "$GITHUB_EVENT_PATH")
  [ -n "$pr" ] || die "$GITHUB_EVENT_PATH: no pull_request.number"
  if [ -z "${GH_TOKEN:-}" ]; then
    echo "::warning title=weakscan comment::no github-token: no comment"
    return 0
  fi
  case "${GITHUB_SERVER_URL:-https://github.com}" in
    https://github.com) ;;
    *) export GH_HOST="${GITHUB_SERVER_URL#*://}" ;;
  esac
  local body url
  body=$(mktemp "${RUNNER_TEMP:-/tmp}/weakscan-comment.XXXXXX")
  comment_body "$body"
  if url=$(post_comment "$pr" "$(comment_marker)" "$body"); then
    echo "weakscan comment: $url"
    output comment-url "$url"
  else
    echo "::warning title=weakscan comment::could not comment on pull request #$pr (the error above says why: a pull request from a fork gets a read-only token, and the comment needs pull-requests: write)"
  fi
}

# The comment into the file $1: the marker, the report and the footer, nothing cut (the check
# step fitted the report to what the marker and footer leave). The report is the check's
# Markdown again with --report-url, which links the HTML report after the fix; when that cannot
# be had, the check step's Markdown, with the link in the footer if it still fits.
comment_body() {
  local report="$MARKDOWN" link="${REPORT_URL:-}"
  if [ -n "$link" ] && linked_report "$(dirname "$MARKDOWN")/comment.md"; then
    report="$(dirname "$MARKDOWN")/comment.md"
    link=''
  fi
  {
    comment_marker
    echo
    cat "$report"
    comment_footer "$link"
  } >"$1"
  if [ -n "$link" ] && [ "$(wc -c <"$1" | tr -d ' ')" -gt "$COMMENT_LIMIT" ]; then
    {
      comment_marker
      echo
      cat "$report"
      comment_footer ''
    } >"$1"
  fi
}

# The check's Markdown again into $1, with --report-url "$REPORT_URL": weakscan links the HTML
# report after the fix. Fails (the caller keeps the check step's Markdown and links the report
# in the footer) when the check step left no arguments or the check does not end as it did.
linked_report() {
  local args_file arg args=() status=0
  args_file="$(dirname "$MARKDOWN")/check-args"
  [ -f "$args_file" ] && [ -n "${WEAKSCAN:-}" ] || return 1
  while IFS= read -r -d '' arg; do
    args+=("$arg")
  done <"$args_file"
  (
    cd "${INPUT_WORKING_DIRECTORY:-.}" &&
      env -u GITHUB_STEP_SUMMARY "$WEAKSCAN" "${args[@]}" --format markdown \
        --report-url "$REPORT_URL" -o "$1" 2>/dev/null
  ) || status=$?
  [ "$status" = "$EXIT_CODE" ]
}

# The login the token comments as. GraphQL's `viewer` answers for every kind of token: a
# personal access token (its user), the workflow's GITHUB_TOKEN (`github-actions[bot]`) and a
# GitHub App's installation token (`APP[bot]`); REST's `GET /user` refuses the last two
# ("Resource not accessible by integration"), so it is only the fallback. This is how
# marocchino/sticky-pull-request-comment finds its own comment (src/comment.ts: `viewer {
# login }`, since its pull request #332 "Ignore other users' comments"); a fixed
# `github-actions[bot]` would never find an App's comment again (wzshiming/gh-ci-bot#156). REST
# gives a bot's login with its `[bot]`, as `viewer` does.
token_login() {
  local login
  login=$(gh api graphql -f query='query { viewer { login } }' | jq -r '.data.viewer.login // empty') || login=''
  [ -n "$login" ] || login=$(gh api user | jq -r '.login // empty') || login=''
  [ -n "$login" ] || {
    echo "weakscan action: cannot tell which login github-token comments as" >&2
    return 1
  }
  printf '%s\n' "$login"
}

# Updates the first comment of the pull request that the token's own login wrote and whose body
# starts with the marker, or creates one (a comment of anyone else is never touched, whatever it
# holds); prints the comment's URL.
post_comment() {
  local pr="$1" marker="$2" body="$3" login id
  login=$(token_login) || return 1
  id=$(gh api --paginate "repos/$GITHUB_REPOSITORY/issues/$pr/comments?per_page=100" \
    | jq -rn --arg m "$marker" --arg who "$login" '
      [inputs[] | select(((.user.login // "") | ascii_downcase) == ($who | ascii_downcase)
        and (.body | startswith($m))) | .id] | first // empty') || return 1
  if [ -n "$id" ]; then
    gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$id" -F "body=@$body" | jq -r .html_url
  else
    gh api --method POST "repos/$GITHUB_REPOSITORY/issues/$pr/comments" -F "body=@$body" | jq -r .html_url
  fi
}

# ---- finish ----

step_finish() {
  case "${EXIT_CODE:-}" in
    '') return 0 ;; # the check did not run: the step that failed says why
    0) echo "weakscan check passed" ;;
    1)
      echo "weakscan check failed: a weak-symbol budget is exceeded (the job summary names it)" >&2
      exit 1
      ;;
    *[!0-9]*) die "exit code ${EXIT_CODE}: not a number" ;;
    *)
      echo "weakscan check could not run (exit code $EXIT_CODE): ${CHECK_ERROR:-}" >&2
      exit "$EXIT_CODE"
      ;;
  esac
}

case "${1:-}" in
  plan) step_plan ;;
  install) step_install ;;
  check) step_check ;;
  comment) step_comment ;;
  finish) step_finish ;;
  *) die "usage: run.sh plan|install|check|comment|finish" ;;
esac
