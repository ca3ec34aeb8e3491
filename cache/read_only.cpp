// Read-only opens (Cache::open_read_only, Cache::read_only_snapshot): the file is never written, migrated or
// switched to WAL, and no -wal / -shm / -journal file is left beside it.
//
// Why not a plain `mode=ro` open: a read-only connection to a WAL-mode file creates the -wal and -shm files when
// they are missing and cannot delete them again (only a connection that can checkpoint does), so every read would
// leave two files behind, and it fails outright in a directory the reader cannot write. SQLite's `immutable=1` URI
// parameter reads the main file with no locks and no side files; that is safe exactly when no writer has pages
// outside the main file, which for a WAL-mode file means there is no -wal file. When one exists a writer is active
// (or crashed before its last checkpoint): then `mode=ro` is the right open, the side files are the writer's, and
// the committed pages in the -wal are seen. A rollback-journal file (older caches) is read with `mode=ro`, which
// creates nothing, unless a -wal file lies beside it: SQLite would then switch the connection to WAL and create a
// -shm (or fail in a directory the reader cannot write), yet no writer of a rollback-mode file writes a -wal (a
// file's header says WAL from the moment a writer switches it), so such a -wal is stray and the file is read with
// `immutable=1`, as it is.  See https://www.sqlite.org/uri.html and https://www.sqlite.org/wal.html (read-only
// databases).
//
// An export document (JSON) opened as a cache, an application's shipped cache, is read into memory through
// import_json, its signature checked against the keys the process trusts (cache/signature.hpp).
#include <SQLiteCpp/Backup.h>

#include <cctype>
#include <filesystem>
#include <fstream>

#include "cache/cache_impl.hpp"

namespace autotune {

namespace cache_detail {

namespace {

// "file:" URI of a path: every byte outside the unreserved set is percent-encoded, so '?', '#' and '%' in file
// names stay part of the name.
std::string file_uri(const std::string& path, std::string_view query) {
  std::string uri = "file:";
  for (const unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '-' || c == '_' || c == '~') uri += static_cast<char>(c);
    else uri += fmt::format("%{:02X}", c);
  }
  uri += '?';
  uri += query;
  return uri;
}

// Bytes 18 and 19 of an SQLite header are the file format's write and read versions: 2 means WAL mode
// (https://www.sqlite.org/fileformat2.html#the_database_header). A file too short for a header reads as not WAL;
// check_readable then refuses it with SQLite's own message.
bool header_says_wal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[20] = {};
  in.read(header, sizeof header);
  return in.gcount() == sizeof header && (header[18] == 2 || header[19] == 2);
}

}  // namespace

bool is_document(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;  // never opened: a FIFO would block the open
  std::ifstream in(path, std::ios::binary);
  char start[16] = {};
  in.read(start, sizeof start);
  const std::string_view head(start, static_cast<std::size_t>(in.gcount()));
  if (head.starts_with(std::string_view("SQLite format 3\0", 16))) return false;
  const auto first = head.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && head[first] == '{';
}

SQLite::Database open_file_read_only(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) throw CacheError(fmt::format("cache file '{}' does not exist", path));
  if (!std::filesystem::is_regular_file(status))
    throw CacheError(fmt::format("cache file '{}' is not a regular file", path));
  const bool wal = header_says_wal(path);
  const bool has_wal = std::filesystem::exists(path + "-wal", ec);
  const bool writer_active = wal && has_wal;
  const bool stray_wal = !wal && has_wal && !std::filesystem::exists(path + "-journal", ec);
  const std::string uri = file_uri(path, (wal && !writer_active) || stray_wal ? "immutable=1" : "mode=ro");
  return guarded(path, "be opened for reading", [&] {
    return SQLite::Database(uri, SQLite::OPEN_READONLY | SQLite::OPEN_URI, 5000);
  });
}

}  // namespace cache_detail

Cache Cache::open_read_only(const std::string& path, ReadCheck check) {
  using namespace cache_detail;
  if (path == kMemory) return Cache(kMemory);
  if (is_document(path)) {
    std::ifstream in(path, std::ios::binary);
    ImportOptions options;
    try {
      options.trusted_keys = trusted_public_keys();
    } catch (const Error& e) {  // a lookup falls back on a CacheError, saying why
      throw CacheError(fmt::format("cache file '{}' cannot be checked: {}", path, e.what()));
    }
    Cache cache(kMemory);
    cache.import_json(in, path, options);
    cache.impl_->path = path;  // messages name the document
    return cache;
  }
  auto file = std::make_unique<Impl>(path, open_file_read_only(path));
  file->check_readable(check);
  if (file->user_version() < kSchemaVersion) return snapshot_of(*file);  // upgraded in a copy, never in the file
  return Cache(std::move(file));
}

Cache Cache::read_only_snapshot(const std::string& path) {
  using namespace cache_detail;
  Impl file(path, open_file_read_only(path));
  file.check_readable();
  return snapshot_of(file);
}

Cache Cache::snapshot_of(Impl& file) {
  using namespace cache_detail;
  const std::string& path = file.path;
  auto copy = std::make_unique<Impl>(path, guarded(path, "be copied", [&] {
    SQLite::Database mem(kMemory, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    {
      SQLite::Backup backup(mem, file.db);
      backup.executeStep();  // all pages, in one read transaction of the file
    }
    return mem;
  }));
  if (copy->user_version() < kSchemaVersion) {
    copy->upgrade();
    copy->check_shape();  // an older file of another program is not read as ours
  }
  return Cache(std::move(copy));  // messages keep naming the file
}

}  // namespace autotune
