// Benchmark database generator (not a test fixture): writes, deterministically, a real RocksDB
// database through librocksdb 7.8.3, laid out as a levelled production database would be:
// two column families, four non-empty levels each (L0..L3), 64 MiB files, lz4 on the upper
// levels and zstd from L3 down, and mixed data (JSON-like records, English-like text, random
// bytes).
//
//   g++ -std=c++17 -O2 bench/gen-db.cc -o gen-db -lrocksdb
//   gen-db DIR [--scale F] [--seed N]       (DIR must not exist; scale 1 = about 2.3 GB of SSTs)
//
// Levels are placed directly rather than by waiting for automatic compaction: each level is
// filled bottom-up by flushing memtables of sorted keys to L0 and moving them with CompactFiles
// into the level, which rewrites them once with that level's compression, as compaction would.
// Every level spans the whole key range of its column family (upper levels hold newer versions
// of some keys), so nothing is "bottommost" except L3. Then the database is reopened with the
// production options (so the newest OPTIONS file is the one a user would have) and two recent
// memtables are flushed to L0. The sizes are below every compaction trigger, so opening the
// database with these options does not compact anything.
//
// Output: stderr shows progress; stdout, at the end, one JSON object: the live files as RocksDB
// lists them (GetLiveFilesMetaData: column family, level, name, size, entries) and the
// generation time.

#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace ROCKSDB_NAMESPACE;

namespace {

constexpr uint64_t MiB = 1024 * 1024;

// ---- deterministic data -------------------------------------------------------------------

/** splitmix64: one small, well-mixed PRNG; every record seeds its own, so order never matters. */
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /** Uniform in [0, n). */
  uint64_t below(uint64_t n) { return next() % n; }
  /** Uniform in [lo, hi]. */
  uint64_t between(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }
  /** Index in [0, n) skewed towards 0 (common words, popular pages). */
  uint64_t skewed(uint64_t n) {
    double u = (next() >> 11) * (1.0 / 9007199254740992.0);
    return static_cast<uint64_t>(u * u * u * n);
  }
};

uint64_t mix(uint64_t a, uint64_t b) { return Rng(a * 0x2545F4914F6CDD1DULL ^ b).next(); }

const char* const kWords[] = {
    "the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be", "by", "on", "not", "he",
    "this", "are", "or", "his", "from", "at", "which", "but", "have", "an", "had", "they", "you", "were", "their",
    "one", "all", "we", "can", "her", "has", "there", "been", "if", "more", "when", "will", "would", "who", "so",
    "no", "she", "other", "its", "may", "these", "what", "them", "than", "some", "him", "time", "into", "only", "do",
    "could", "new", "about", "two", "first", "then", "also", "any", "like", "such", "our", "after", "most", "over",
    "made", "out", "should", "years", "between", "many", "those", "each", "where", "very", "much", "before", "well",
    "through", "same", "because", "world", "people", "under", "however", "state", "while", "system", "during",
    "without", "number", "against", "water", "small", "large", "government", "general", "country", "often",
    "several", "important", "development", "called", "public", "found", "following", "different", "history",
    "within", "example", "information", "around", "another", "company", "power", "century", "early", "whether",
    "family", "political", "social", "university", "research", "market", "problem", "process", "service",
    "increase", "children", "second", "always", "business", "military", "energy", "evidence", "individual",
    "storage", "database", "engine", "compression", "written", "morning", "river", "mountain", "village",
    "station", "letter", "journey", "garden", "window", "silence", "weather", "harbour", "lantern", "meadow",
    "answer", "question", "reason", "result", "season", "picture", "language", "practice", "movement", "pressure",
    "distance", "surface", "measure", "quickly", "slowly", "carefully", "together", "already", "nothing",
    "everything", "somewhere", "remember", "consider", "continue", "describe", "discover", "explain", "imagine",
    "provide", "receive", "suggest", "understand", "beautiful", "difficult", "familiar", "important", "natural",
    "ordinary", "possible", "probable", "separate", "various", "ancient", "bright", "careful", "certain",
    "common", "distant", "empty", "famous", "gentle", "heavy", "honest", "narrow", "pleasant", "quiet", "simple"};
constexpr size_t kWordCount = sizeof(kWords) / sizeof(kWords[0]);

const char* const kCountries[] = {"DE", "US", "FR", "GB", "JP", "BR", "IN", "NL", "SE", "ES", "IT", "CA", "AU", "PL", "KR"};
const char* const kPlans[] = {"free", "pro", "team", "enterprise"};
const char* const kSites[] = {"google", "bing", "duckduckgo", "news.ycombinator", "reddit", "twitter", "github", "example"};
const char* const kAgents[] = {
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:120.0) Gecko/20100101 Firefox/120.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
    "okhttp/4.12.0", "curl/8.4.0"};
const char* const kErrors[] = {"timeout contacting upstream", "connection reset by peer", "invalid account token",
                               "quota exceeded for tenant", "record not found", "permission denied"};
template <size_t N>
const char* pick(Rng& r, const char* const (&a)[N]) { return a[r.skewed(N)]; }

void appendf(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string& out, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  out.append(buf, n < 0 ? 0 : std::min<size_t>(n, sizeof buf - 1));
}

/** English-like prose: skewed word frequencies, sentences, commas. */
void appendText(std::string& out, Rng& r, size_t bytes) {
  size_t end = out.size() + bytes;
  while (out.size() < end) {
    size_t words = r.between(6, 22);
    for (size_t w = 0; w < words; w++) {
      const char* word = kWords[r.skewed(kWordCount)];
      if (w == 0) {
        out.push_back(static_cast<char>(word[0] >= 'a' && word[0] <= 'z' ? word[0] - 32 : word[0]));
        out.append(word + 1);
      } else {
        out.append(word);
      }
      if (w + 1 < words) out.append(r.below(9) == 0 ? ", " : " ");
    }
    out.append(r.below(6) == 0 ? "? " : ". ");
  }
  out.resize(end);
}

void appendRandom(std::string& out, Rng& r, size_t bytes) {
  for (size_t i = 0; i < bytes; i += 8) {
    uint64_t v = r.next();
    out.append(reinterpret_cast<const char*>(&v), std::min<size_t>(8, bytes - i));
  }
}

void appendBase64(std::string& out, Rng& r, size_t chars) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < chars; i++) out.push_back(kAlphabet[r.below(64)]);
}

/** An analytics event, in one of three shapes. */
void appendEvent(std::string& out, Rng& r, uint64_t id) {
  uint64_t ts = uint64_t{1700000000000} + id * 37 + r.below(1000);
  uint64_t user = r.skewed(2000000);
  appendf(out, "{\"event_id\":\"%016" PRIx64 "\",\"ts\":%" PRIu64 ",", r.next(), ts);
  switch (r.below(10)) {
    case 0: case 1: case 2: case 3: case 4: case 5:
      appendf(out, "\"type\":\"page_view\",\"user\":{\"id\":%" PRIu64 ",\"country\":\"%s\",\"plan\":\"%s\"},", user,
              pick(r, kCountries), pick(r, kPlans));
      appendf(out, "\"page\":\"/products/%" PRIu64 "\",\"referrer\":\"https://www.%s.com/\",\"ua\":\"%s\",", r.skewed(50000),
              pick(r, kSites), pick(r, kAgents));
      appendf(out, "\"duration_ms\":%" PRIu64 ",\"request\":\"%016" PRIx64 "\"}", r.skewed(60000), r.next());
      break;
    case 6: case 7: case 8: {
      appendf(out, "\"type\":\"purchase\",\"user\":{\"id\":%" PRIu64 ",\"country\":\"%s\"},\"items\":[", user, pick(r, kCountries));
      uint64_t items = r.between(1, 6);
      for (uint64_t i = 0; i < items; i++) {
        appendf(out, "%s{\"sku\":\"SKU-%06" PRIu64 "\",\"qty\":%" PRIu64 ",\"price\":%" PRIu64 ".%02" PRIu64 "}", i ? "," : "",
                r.skewed(100000), r.between(1, 5), r.skewed(500), r.below(100));
      }
      appendf(out, "],\"currency\":\"EUR\",\"payment\":\"%s\",\"order\":\"%016" PRIx64 "\"}", r.below(2) ? "card" : "paypal", r.next());
      break;
    }
    default:
      appendf(out, "\"type\":\"error\",\"service\":\"api-%" PRIu64 "\",\"code\":%" PRIu64 ",\"message\":\"%s\",\"detail\":\"",
              r.skewed(40), 500 + r.below(4), pick(r, kErrors));
      appendText(out, r, r.between(40, 200));
      out.append("\"}");
  }
}

/** A user profile document, optionally with an opaque base64 attachment. */
void appendProfile(std::string& out, Rng& r, uint64_t id, bool attachment) {
  appendf(out, "{\"id\":%" PRIu64 ",\"name\":\"%s %s\",\"email\":\"user%" PRIu64 "@%s.com\",\"country\":\"%s\",", id,
          kWords[r.skewed(kWordCount)], kWords[r.skewed(kWordCount)], id, pick(r, kSites), pick(r, kCountries));
  appendf(out, "\"plan\":\"%s\",\"created\":%" PRIu64 ",\"settings\":{\"theme\":\"%s\",\"lang\":\"%s\",\"notify\":%s},",
          pick(r, kPlans), uint64_t{1500000000} + r.below(200000000), r.below(3) ? "light" : "dark", r.below(2) ? "en" : "de",
          r.below(2) ? "true" : "false");
  appendf(out, "\"bio\":\"");
  appendText(out, r, r.between(30, 300));
  out.append("\"");
  if (attachment) {
    out.append(",\"avatar\":\"data:image/png;base64,");
    appendBase64(out, r, r.between(300, 1500));
    out.append("\"");
  }
  out.append("}");
}

// ---- the two column families ----------------------------------------------------------------

enum Family { kDefault = 0, kEvents = 1 };
const char* const kFamilyNames[] = {"default", "events"};

/**
 * events: analytics events, 90% JSON records, 10% plain-text log lines (interleaved per record).
 * default: key ranges of different kinds, in runs of 64 consecutive ids: 35% profile JSON, 35%
 * articles (text), 20% random bytes (encrypted or already compressed payloads), 10% JSON with a
 * base64 attachment.
 */
void makeRecord(Family f, uint64_t seed, int level, uint64_t id, std::string& key, std::string& value) {
  Rng r(mix(mix(seed, f * 16 + level), id));
  char k[40];
  snprintf(k, sizeof k, f == kEvents ? "evt:%012" PRIu64 : "obj:%012" PRIu64, id);
  key.assign(k);
  value.clear();
  if (f == kEvents) {
    if (r.below(10) == 0) {
      appendf(value, "%" PRIu64 " WARN worker-%" PRIu64 ": ", uint64_t{1700000000} + id / 30, r.skewed(64));
      appendText(value, r, r.between(60, 400));
    } else {
      appendEvent(value, r, id);
    }
    return;
  }
  uint64_t kind = mix(seed ^ 0x5eed, id / 64) % 20;
  if (kind < 7) appendProfile(value, r, id, false);
  else if (kind < 14) appendText(value, r, r.between(200, 1800));
  else if (kind < 18) appendRandom(value, r, r.between(200, 2000));
  else appendProfile(value, r, id, true);
}

// ---- options --------------------------------------------------------------------------------

ColumnFamilyOptions productionOptions(Family f) {
  ColumnFamilyOptions o;
  o.write_buffer_size = 64 * MiB;
  o.target_file_size_base = 64 * MiB;
  o.max_bytes_for_level_base = 256 * MiB;
  o.num_levels = 7;
  o.compression = kLZ4Compression;
  o.compression_per_level = {kLZ4Compression, kLZ4Compression, kLZ4Compression, kZSTD, kZSTD, kZSTD, kZSTD};
  BlockBasedTableOptions t;
  t.block_size = f == kEvents ? 4 * 1024 : 16 * 1024;
  t.filter_policy.reset(NewBloomFilterPolicy(10));
  t.cache_index_and_filter_blocks = true;
  t.format_version = 5;
  o.table_factory.reset(NewBlockBasedTableFactory(t));
  return o;
}

/** Bulk loading: one big memtable flushed by hand, nothing compacts behind our back. */
ColumnFamilyOptions loadingOptions(Family f) {
  ColumnFamilyOptions o = productionOptions(f);
  o.write_buffer_size = 512 * MiB;
  o.max_write_buffer_number = 2;
  o.disable_auto_compactions = true;
  o.level0_slowdown_writes_trigger = 1000;
  o.level0_stop_writes_trigger = 1000;
  return o;
}

void check(const Status& s, const char* what) {
  if (!s.ok()) {
    fprintf(stderr, "gen-db: %s: %s\n", what, s.ToString().c_str());
    exit(1);
  }
}

struct Db {
  DB* db = nullptr;
  std::vector<ColumnFamilyHandle*> cfs;

  void open(const std::string& dir, bool loading) {
    DBOptions o;
    o.create_if_missing = true;
    o.create_missing_column_families = true;
    o.max_background_jobs = 2;
    o.max_subcompactions = loading ? 2 : 1;
    o.bytes_per_sync = 1 * MiB;
    std::vector<ColumnFamilyDescriptor> d;
    for (Family f : {kDefault, kEvents}) d.emplace_back(kFamilyNames[f], loading ? loadingOptions(f) : productionOptions(f));
    check(DB::Open(o, dir, d, &cfs, &db), "open");
  }
  void close() {
    for (auto* h : cfs) check(db->DestroyColumnFamilyHandle(h), "close column family");
    cfs.clear();
    check(db->Close(), "close");
    delete db;
    db = nullptr;
  }
  uint64_t levelBytes(Family f, int level) {
    ColumnFamilyMetaData m;
    db->GetColumnFamilyMetaData(cfs[f], &m);
    return m.levels[level].size;
  }
  std::vector<std::string> levelFiles(Family f, int level) {
    ColumnFamilyMetaData m;
    db->GetColumnFamilyMetaData(cfs[f], &m);
    std::vector<std::string> names;
    for (auto& file : m.levels[level].files) names.push_back(file.name);
    return names;
  }
};

struct Config {
  uint64_t seed = 1;
  double scale = 1;
};

/** Writes ids first, first+stride, ... into the memtable until `rawBytes` of keys and values; returns the next id. */
uint64_t writeRun(Db& db, Family f, const Config& c, int level, uint64_t first, uint64_t stride, uint64_t rawBytes,
                  uint64_t* written) {
  WriteOptions wo;
  wo.disableWAL = true;
  std::string key, value;
  uint64_t id = first, bytes = 0;
  while (bytes < rawBytes) {
    WriteBatch batch;
    for (uint64_t batchBytes = 0; batchBytes < 1 * MiB && bytes < rawBytes; id += stride) {
      makeRecord(f, c.seed, level, id, key, value);
      check(batch.Put(db.cfs[f], key, value), "put");
      batchBytes += key.size() + value.size();
      bytes += key.size() + value.size();
    }
    check(db.db->Write(wo, &batch), "write");
  }
  *written += bytes;
  return id;
}

void flush(Db& db, Family f) {
  FlushOptions fo;
  fo.wait = true;
  check(db.db->Flush(fo, db.cfs[f]), "flush");
}

struct Filled {
  uint64_t ids;
  uint64_t rawBytes;
};

/**
 * Fills `level` of `f` to `targetBytes` on disk: rounds of memtables of sorted ids (starting at
 * 0, `stride` apart) flushed to L0, then moved into the level by one CompactFiles per round. The
 * first round writes half of what `ratioGuess` (raw / on-disk) predicts, later rounds use the
 * measured ratio, so the level ends close to its target.
 */
Filled fillLevel(Db& db, Family f, const Config& c, int level, uint64_t targetBytes, uint64_t stride, double ratioGuess) {
  const uint64_t memtableRaw = std::max<uint64_t>(8 * MiB, static_cast<uint64_t>(256 * MiB * std::min(1.0, c.scale * 4)));
  const uint64_t maxRound = 4 * memtableRaw;
  CompactionOptions co;
  co.compression = kDisableCompressionOption;  // the level's own compression_per_level entry
  co.output_file_size_limit = 64 * MiB;
  co.max_subcompactions = 2;
  uint64_t id = 0, raw = 0, count = 0;
  double ratio = ratioGuess / 2;
  while (db.levelBytes(f, level) < targetBytes) {
    uint64_t missing = targetBytes - db.levelBytes(f, level);
    uint64_t round = std::min(maxRound, std::max<uint64_t>(1 * MiB, static_cast<uint64_t>(missing * ratio * 1.01)));
    for (uint64_t done = 0; done < round;) {
      uint64_t chunk = std::min(memtableRaw, round - done);
      uint64_t before = id;
      id = writeRun(db, f, c, level, id, stride, chunk, &raw);
      count += (id - before) / stride;
      done += chunk;
      flush(db, f);
    }
    check(db.db->CompactFiles(co, db.cfs[f], db.levelFiles(f, 0), level), "compact files");
    ratio = static_cast<double>(raw) / std::max<uint64_t>(1, db.levelBytes(f, level));
    fprintf(stderr, "  %s L%d: %.1f MB on disk (%.1f MB raw written, ratio %.2f)\n", kFamilyNames[f], level,
            db.levelBytes(f, level) / 1e6, raw / 1e6, ratio);
  }
  return {count, raw};
}

void printLiveFiles(Db& db, double seconds) {
  std::vector<LiveFileMetaData> files;
  db.db->GetLiveFilesMetaData(&files);
  printf("{\"generationSeconds\":%.1f,\"files\":[", seconds);
  for (size_t i = 0; i < files.size(); i++) {
    const auto& m = files[i];
    // Keys are printable ASCII (evt:/obj: and digits), so they need no JSON escaping.
    printf("%s\n{\"columnFamily\":\"%s\",\"level\":%d,\"name\":\"%s\",\"size\":%" PRIu64 ",\"entries\":%" PRIu64
           ",\"smallestKey\":\"%s\",\"largestKey\":\"%s\"}",
           i ? "," : "", m.column_family_name.c_str(), m.level, m.relative_filename.c_str(), m.size, m.num_entries,
           m.smallestkey.c_str(), m.largestkey.c_str());
  }
  printf("\n]}\n");
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  std::string dir;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--scale" && i + 1 < argc) c.scale = atof(argv[++i]);
    else if (a == "--seed" && i + 1 < argc) c.seed = strtoull(argv[++i], nullptr, 10);
    else if (dir.empty() && a[0] != '-') dir = a;
    else {
      fprintf(stderr, "usage: gen-db DIR [--scale F] [--seed N]\n");
      return 2;
    }
  }
  if (dir.empty() || !(c.scale > 0)) {
    fprintf(stderr, "usage: gen-db DIR [--scale F] [--seed N]\n");
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  // On-disk targets per level at scale 1 (MB): L3 holds most, L1 and L2 stay under their
  // max_bytes_for_level targets (256 MB, 2.56 GB) so nothing needs compacting.
  struct Plan { Family f; uint64_t l1, l2, l3; };
  const Plan plans[] = {{kEvents, 110, 360, 700}, {kDefault, 110, 330, 640}};
  const uint64_t MB = 1000 * 1000;
  Db db;
  db.open(dir, true);
  std::vector<Filled> bottom;  // per family: what L3 holds
  for (const Plan& p : plans) {
    Filled l3 = fillLevel(db, p.f, c, 3, static_cast<uint64_t>(p.l3 * MB * c.scale), 1, 2.5);
    // Upper levels span the same ids more sparsely; lz4 stores ~1.4x zstd's bytes per record.
    double bottomRatio = static_cast<double>(l3.rawBytes) / db.levelBytes(p.f, 3);
    double bytesPerId = static_cast<double>(db.levelBytes(p.f, 3)) / l3.ids * 1.4;
    for (auto [level, target] : {std::pair<int, uint64_t>{2, p.l2}, {1, p.l1}}) {
      uint64_t t = static_cast<uint64_t>(target * MB * c.scale);
      uint64_t stride = std::max<uint64_t>(1, static_cast<uint64_t>(l3.ids / (t / bytesPerId)));
      fillLevel(db, p.f, c, level, t, stride, bottomRatio / 1.4);
    }
    bottom.push_back(l3);
  }
  db.close();

  // Recent writes, with the production options: two memtables per family flushed to L0.
  db.open(dir, false);
  for (size_t i = 0; i < 2; i++) {
    const Plan& p = plans[i];
    uint64_t raw = std::max<uint64_t>(2 * MiB, static_cast<uint64_t>(48 * MiB * std::min(1.0, c.scale * 4)));
    // Each memtable spans L3's ids: as many records as `raw` holds at L3's raw bytes per record.
    double rawPerId = static_cast<double>(bottom[i].rawBytes) / bottom[i].ids;
    uint64_t stride = std::max<uint64_t>(2, static_cast<uint64_t>(bottom[i].ids / (raw / rawPerId)));
    for (uint64_t k = 0; k < 2; k++) {
      uint64_t written = 0;
      writeRun(db, p.f, c, 0, k * (stride / 2), stride, raw, &written);
      flush(db, p.f);
    }
    fprintf(stderr, "  %s L0: %.1f MB on disk\n", kFamilyNames[p.f], db.levelBytes(p.f, 0) / 1e6);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  printLiveFiles(db, seconds);
  db.close();
  fprintf(stderr, "gen-db: %s written in %.1f s\n", dir.c_str(), seconds);
  return 0;
}
