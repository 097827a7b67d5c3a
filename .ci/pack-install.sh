#!/usr/bin/env bash
# The package as users get it: `npm pack` the checkout, install the tarball into an empty
# directory (from npm's cache where it can), then run the installed `sstkit --version` and
# `sstkit verify` on the sample. Fails if the tarball lacks dist/ (or the wasm kernels in it),
# if a dependency does not install (zstd-napi builds natively), if verify's native kernel does not
# load from the installed package, or if either command fails.
# Run by .ci/run; about two minutes, most of it npm install, so it is not part of npm test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/sstkit-pack.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# dist/ is built by `prepare` when npm pack runs it; build first so it is current either way.
(cd "$root" && npm run build >/dev/null)
tarball="$(cd "$root" && npm pack --ignore-scripts --pack-destination "$work" --silent)"
tar -tzf "$work/$tarball" >"$work/contents"
grep -qx 'package/dist/index.js' "$work/contents" || { echo "pack-install: $tarball has no dist/index.js" >&2; exit 1; }
grep -q '^package/dist/wasm/' "$work/contents" || { echo "pack-install: $tarball has no dist/wasm/" >&2; exit 1; }
grep -qx 'package/dist/native/verify-kernel.so' "$work/contents" || { echo "pack-install: $tarball has no dist/native/verify-kernel.so" >&2; exit 1; }

mkdir "$work/app"
cd "$work/app"
echo '{"name":"sstkit-pack-install","version":"1.0.0","private":true}' >package.json
npm install "$work/$tarball" --prefer-offline --no-audit --no-fund --loglevel=error
version="$(./node_modules/.bin/sstkit --version)"
echo "pack-install: installed $version"
case "$version" in sstkit/*) ;; *) echo "pack-install: unexpected --version: $version" >&2; exit 1 ;; esac
cp "$root/examples/sample.sst" .
./node_modules/.bin/sstkit verify sample.sst
# Help renders with packages the bundle (dist/bundle) loads on first use from the installed @oclif/core.
./node_modules/.bin/sstkit --help | grep -q '^  verify ' || { echo "pack-install: sstkit --help lists no verify" >&2; exit 1; }
./node_modules/.bin/sstkit help props >/dev/null
./node_modules/.bin/sstkit verify sample.sst --json | node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); if (!j.ok || j.entries !== 900) process.exit(1)'
node --input-type=module -e "import { openTable } from 'sstkit'; const t = openTable('sample.sst'); if (t.properties.known.get('rocksdb.num.entries') !== 900) process.exit(1); t.close()"
# verify's native kernel, built where the tarball was packed, loads from the installed package here.
node --input-type=module -e "import { nativeVerifyAbilities } from 'sstkit'; if (!nativeVerifyAbilities()) process.exit(1)"
echo "pack-install: ok"
