/**
 * The real `ldb dump --path=FILE.blob --hex [--dump_uncompressed_blobs]` text beside each blob
 * fixture (test/fixtures/generate-blob.sh), parsed: the oracle of the blob file reader.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../helpers.js'

export const BLOB_FIXTURES = join(ROOT, 'test/fixtures/blob')

export interface LdbBlobDump {
  header: { version: number; columnFamilyId: number; compression: string; expirationRange: string }
  footer: { blobCount: number; expirationRange: string } | null
  records: { offset: number; keySize: number; valueSize: number; expiration: number; keyHex: string; blobHex: string }[]
  summary: { records: number; keyBytes: number; blobBytes: number; rawBlobBytes?: number }
}

/** Every blob file of the fixtures, relative to the repository root (`test/fixtures/blob/DB/NNNNNN.blob`). */
export function blobFixtureFiles(): string[] {
  return readdirSync(BLOB_FIXTURES, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(BLOB_FIXTURES, d.name))
        .filter((n) => n.endsWith('.blob'))
        .map((n) => `test/fixtures/blob/${d.name}/${n}`),
    )
    .sort()
}

/** ldb's dump of `file` (`.dump.txt`: raw blobs uncompressed; `.stored.txt`: stored bytes, uncompressed files only). */
export function ldbBlobDump(file: string, kind: 'dump' | 'stored' = 'dump'): LdbBlobDump {
  const text = readFileSync(join(ROOT, `${file}.${kind}.txt`), 'utf8')
  const field = (name: string) => {
    const m = new RegExp(`^  ${name}\\s*: (.*)$`, 'm').exec(text)
    if (!m) throw new Error(`${file}: no "${name}" in ldb's dump`)
    return m[1]
  }
  const header = {
    version: Number(field('Version')),
    columnFamilyId: Number(field('Column Family ID')),
    compression: field('Compression'),
    expirationRange: field('Expiration range'),
  }
  const footer = text.includes('Blob log footer:') ? { blobCount: Number(field('Blob count')), expirationRange: field('Expiration Range') } : null
  const records: LdbBlobDump['records'] = []
  const re =
    /^Read record with offset 0x[0-9a-f]+ \((\d+)\):\n {2}key size {3}: (\d+)\n {2}value size : (\d+)\n {2}expiration : (\d+)\n {2}key {8}: ([0-9A-F]*)\n {2}(?:raw )?blob {3,7}: ([0-9A-F]*)$/gm
  for (const m of text.matchAll(re)) {
    records.push({ offset: Number(m[1]), keySize: Number(m[2]), valueSize: Number(m[3]), expiration: Number(m[4]), keyHex: m[5], blobHex: m[6] })
  }
  const raw = /total raw blob size: (\d+)/.exec(text)
  const summary = {
    records: Number(/total records: (\d+)/.exec(text)![1]),
    keyBytes: Number(/total key size: (\d+)/.exec(text)![1]),
    blobBytes: Number(/total blob size: (\d+)/.exec(text)![1]),
    ...(raw ? { rawBlobBytes: Number(raw[1]) } : {}),
  }
  if (records.length !== summary.records) throw new Error(`${file}: parsed ${records.length} records of ldb's ${summary.records}`)
  return { header, footer, records, summary }
}
