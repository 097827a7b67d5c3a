#!/usr/bin/env node
// Derives src/db/option-versions.ts: for every option name and syntax `advise` prints, the
// first RocksDB release whose OPTIONS parser accepts it, read from RocksDB's own sources at each
// release (its first vX.Y[.Z] tag, else its X.Y.fb branch) of a local git checkout:
//   node scripts/derive-option-versions.mjs /path/to/rocksdb > src/db/option-versions.ts
//   npx biome format --write src/db/option-versions.ts
// What is read at each tag (test files excluded):
// - column family option names: a quoted "name" in the options sources (options/, util/options_helper.*,
//   where the type-info maps and ParseColumnFamilyOption lived before options/ existed);
// - compression type names: the quoted "kXxx" entries of compression_type_string_map;
// - compression_opts brace form (name=value;...): the compression_options_type_info map exists;
//   its field names are that map's keys;
// - compression_opts colon form: the fields ParseCompressionOptions (or, before it, the
//   compression_opts branch of ParseColumnFamilyOption) assigns from the value, in order.
// Nothing fetched is copied: only names and the first tag each appears at are kept.
import { execFileSync } from 'node:child_process'

const repo = process.argv[2]
if (!repo) {
  process.stderr.write('usage: derive-option-versions.mjs ROCKSDB_GIT_CHECKOUT\n')
  process.exit(2)
}

const git = (...args) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 256 << 20 })

/**
 * One source per major.minor release, oldest first: its first release tag, else (a release with
 * no tag in the checkout, e.g. 6.18 or 8.2) the tip of its release branch X.Y.fb.
 */
function releases() {
  const byMinor = new Map()
  for (const tag of git('tag', '--list').split('\n')) {
    const m = /^v(\d+)\.(\d+)(?:\.(\d+))?$/.exec(tag)
    if (!m) continue
    const v = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)]
    const key = `${v[0]}.${v[1]}`
    const old = byMinor.get(key)
    if (!old || cmp(v, old.v) < 0) byMinor.set(key, { tag, v, version: key })
  }
  const branches = git('for-each-ref', '--format=%(refname:short)', 'refs/heads', 'refs/remotes').split('\n')
  for (const ref of branches) {
    const m = /(?:^|\/)(\d+)\.(\d+)\.fb$/.exec(ref)
    if (!m) continue
    const key = `${m[1]}.${m[2]}`
    if (!byMinor.has(key)) byMinor.set(key, { tag: ref, v: [Number(m[1]), Number(m[2]), 0], version: key })
  }
  return [...byMinor.values()].sort((a, b) => cmp(a.v, b.v))
}

function cmp(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i]
  return 0
}

/** The non-test options sources at a tag, concatenated. */
function optionsSources(tag) {
  const files = git('ls-tree', '-r', '--name-only', tag, '--', 'options', 'util')
    .split('\n')
    .filter((f) => /^(options\/[^/]+|util\/options_helper)\.(cc|h)$/.test(f) && !/_test\.cc$/.test(f))
  return files.map((f) => git('show', `${tag}:${f}`)).join('\n')
}

/** The text of the initializer `name = { ... };` (balanced braces), or null. */
function initializer(text, name) {
  const at = text.search(new RegExp(`${name}\\s*=\\s*\\{`))
  if (at < 0) return null
  let depth = 0
  for (let i = text.indexOf('{', at); i < text.length; i++) {
    if (text[i] === '{') depth++
    else if (text[i] === '}' && --depth === 0) return text.slice(at, i + 1)
  }
  return null
}

/** Keys of a type-info map's initializer: `{"name", {...}}` at the first nesting level inside. */
function mapKeys(init) {
  const keys = []
  let depth = 0
  for (let i = 0; i < init.length; i++) {
    const c = init[i]
    if (c === '{') {
      depth++
      if (depth === 2) {
        const m = /^\{\s*"([a-z_0-9]+)"/.exec(init.slice(i))
        if (m) keys.push(m[1])
      }
    } else if (c === '}') depth--
  }
  return keys
}

/** The colon form's fields, in the order the parser assigns them from the value. */
function colonFields(text) {
  const start = text.search(/Status ParseCompressionOptions\(|name == "compression_opts"/)
  if (start < 0) return []
  const body = text.slice(start, start + 6000).replace(/\s+/g, ' ')
  const fields = []
  for (const m of body.matchAll(/compression_opts(?:\.|->)(\w+) = Parse/g)) if (!fields.includes(m[1])) fields.push(m[1])
  return fields
}

const CF_OPTIONS = [
  'compression',
  'compression_per_level',
  'compression_opts',
  'bottommost_compression',
  'bottommost_compression_opts',
  'level_compaction_dynamic_level_bytes',
  'blob_compression_type',
  'blob_compression_opts',
]
const TYPES = [
  'kNoCompression',
  'kSnappyCompression',
  'kZlibCompression',
  'kBZip2Compression',
  'kLZ4Compression',
  'kLZ4HCCompression',
  'kXpressCompression',
  'kZSTD',
  'kZSTDNotFinalCompression',
  'kDisableCompressionOption',
]

const first = { cfOptions: {}, compressionTypes: {}, braceForm: null, braceFields: {}, colonFields: {} }
let lastColonOrder = []
const tags = releases()
for (const { tag, version } of tags) {
  const text = optionsSources(tag)
  for (const name of CF_OPTIONS) if (!(name in first.cfOptions) && text.includes(`"${name}"`)) first.cfOptions[name] = version
  for (const name of TYPES) if (!(name in first.compressionTypes) && text.includes(`"${name}"`)) first.compressionTypes[name] = version
  const init = initializer(text, 'compression_options_type_info')
  if (init) {
    first.braceForm ??= version
    for (const k of mapKeys(init)) first.braceFields[k] ??= version
  }
  const colon = colonFields(text)
  for (const f of colon) first.colonFields[f] ??= version
  if (!init && colon.length) lastColonOrder = colon
}

const newest = tags[tags.length - 1]
const out = {
  newestRelease: newest.version,
  releasesRead: tags.length,
  columnFamilyOptions: first.cfOptions,
  compressionTypes: first.compressionTypes,
  compressionOptsBraceForm: first.braceForm,
  compressionOptsBraceFields: first.braceFields,
  compressionOptsColonFields: first.colonFields,
  compressionOptsColonOrder: lastColonOrder,
}
process.stdout.write(`/**
 * The first RocksDB release (major.minor) whose OPTIONS parser accepts each name and syntax advise
 * prints; a name missing from a map is in no release up to newestRelease. Generated from each
 * release of facebook/rocksdb (its first tag, else its X.Y.fb branch) by
 * scripts/derive-option-versions.mjs; do not edit by hand.
 */
export const OPTION_VERSIONS = ${JSON.stringify(out, null, 2)} as const
`)
