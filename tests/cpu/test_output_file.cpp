// Hostile output paths and hostile text: where `export -o` / `report --output` write, JSON of names that are not
// UTF-8, error messages that carry terminal escapes. Part of the cli_output suite.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "cli/commands.hpp"
#include "cli/format.hpp"
#include "cli/options.hpp"
#include "cli/output_file.hpp"
#include "tests/cpu/cache_fixtures.hpp"

using namespace autotune;
using namespace autotune::cli;
using namespace autotune::test;
namespace fs = std::filesystem;

namespace {

// Names in `dir` that look like a temporary file of write_output_file.
std::vector<std::string> temporaries(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) found.push_back(e.path().string());
  return found;
}

std::string refusal(const std::string& path, const std::string& content = "x") {
  try {
    write_output_file(path, content);
  } catch (const Error& e) {
    return e.what();
  }
  return "written";
}

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st.st_mode;
}

}  // namespace

TEST_SUITE("cli_output") {
  TEST_CASE("output files: a regular file or a missing one is replaced atomically, keeping its mode") {
    TempPath dir;
    fs::create_directories(dir.path);
    const fs::path file = dir.path / "out.json";
    write_output_file(file.string(), "first");
    CHECK(read_bytes(file) == "first");
    fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
    write_output_file(file.string(), "second");
    CHECK(read_bytes(file) == "second");
    CHECK(S_ISREG(mode_of(file)));
    CHECK((mode_of(file) & 07777) == 0600);
    CHECK(temporaries(dir.path).empty());
  }

  TEST_CASE("output files: a FIFO is written through to its reader and stays a FIFO") {
    TempPath dir;
    fs::create_directories(dir.path);
    const fs::path fifo = dir.path / "pipe";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    auto reader = std::async(std::launch::async, [&] { return read_bytes(fifo); });
    CHECK(write_output_file(fifo.string(), "through the pipe") == Written::through);
    CHECK(reader.get() == "through the pipe");
    CHECK(S_ISFIFO(mode_of(fifo)));
    CHECK(temporaries(dir.path).empty());
  }

  TEST_CASE("output files: a character device is written through and stays a device") {
    CHECK(write_output_file("/dev/null", "discarded") == Written::through);
    CHECK(S_ISCHR(mode_of("/dev/null")));
    // Through a link to it, as /dev/stdout is one: the link stays a link, the device a device.
    TempPath dir;
    fs::create_directories(dir.path);
    const fs::path link = dir.path / "null";
    fs::create_symlink("/dev/null", link);
    write_output_file(link.string(), "discarded");
    CHECK(S_ISLNK(mode_of(link)));
    CHECK(S_ISCHR(mode_of("/dev/null")));
    CHECK(temporaries(dir.path).empty());
  }

  TEST_CASE("output files: a link to a regular file stays a link and its target is replaced; a dangling one is refused") {
    TempPath dir;
    fs::create_directories(dir.path / "real");
    const fs::path target = dir.path / "real" / "export.json", link = dir.path / "latest.json";
    write_bytes(target, "old");
    fs::create_symlink(target, link);
    CHECK(write_output_file(link.string(), "new") == Written::replaced);
    CHECK(S_ISLNK(mode_of(link)));
    CHECK(fs::read_symlink(link) == target);
    CHECK(read_bytes(target) == "new");
    CHECK(temporaries(dir.path).empty());
    CHECK(temporaries(dir.path / "real").empty());

    const fs::path dangling = dir.path / "dangling.json";
    fs::create_symlink(dir.path / "nowhere" / "x.json", dangling);
    const std::string why = refusal(dangling.string());
    CAPTURE(why);
    CHECK(why.find("symbolic link") != std::string::npos);
    CHECK(S_ISLNK(mode_of(dangling)));
    CHECK_FALSE(fs::exists(dir.path / "nowhere"));
    CHECK(temporaries(dir.path).empty());
  }

  TEST_CASE("output files: a directory is refused and a failed write leaves no temporary file") {
    TempPath dir;
    fs::create_directories(dir.path / "sub");
    CHECK(refusal((dir.path / "sub").string()).find("is a directory") != std::string::npos);
    CHECK(fs::is_directory(dir.path / "sub"));
    CHECK(refusal((dir.path / "missing" / "out.json").string()).find("cannot write") != std::string::npos);
    CHECK(temporaries(dir.path).empty());
    CHECK(temporaries(dir.path / "sub").empty());
    // /dev/full fails every write: the failure is reported, not swallowed.
    if (fs::exists("/dev/full")) CHECK(refusal("/dev/full").find("No space left") != std::string::npos);
  }

  TEST_CASE("output files: /dev/fd/1 names standard output, written through (no temporary file beside it)") {
    // An end-to-end check of `export -o /dev/stdout` needs the real binary (cli_exit_codes.sh); here the rule that
    // a descriptor name is never replaced: a temporary file cannot even be created in /proc/self/fd.
    TempPath dir;
    fs::create_directories(dir.path);
    const fs::path file = dir.path / "stdout.txt";
    std::FILE* f = std::fopen(file.c_str(), "w");
    REQUIRE(f);
    const std::string name = "/dev/fd/" + std::to_string(::fileno(f));
    write_output_file(name, "via the descriptor");
    std::fclose(f);
    CHECK(read_bytes(file) == "via the descriptor");
  }

  TEST_CASE("export -o and report --output write through a FIFO to its reader") {
    TempPath dir;
    fs::create_directories(dir.path);
    const std::string cache = (dir.path / "c.db").string();
    {
      Cache c(cache);
      tune(c, h100(), problem(M), config(256, 4));
    }
    for (const char* sub : {"export", "report"}) {
      CAPTURE(sub);
      const fs::path fifo = dir.path / (std::string(sub) + ".pipe");
      REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
      auto reader = std::async(std::launch::async, [&] { return read_bytes(fifo); });
      std::ostringstream o, e;
      CHECK(run(parse_command_line({sub, "--cache", cache, "--output", fifo.string()}), o, e) == 0);
      const std::string got = reader.get();
      if (std::string(sub) == "export") CHECK(nlohmann::json::parse(got).contains("devices"));
      else CHECK(got.rfind("<!DOCTYPE html>", 0) == 0);
      CHECK(S_ISFIFO(mode_of(fifo)));
      CHECK(o.str().empty());  // the FIFO's reader gets the document and nothing else
    }
    CHECK(temporaries(dir.path).empty());
  }

  TEST_CASE("JSON listings of names that are not UTF-8: U+FFFD instead of an exception") {
    Listing l;
    l.columns = {{"name", "name"}};
    l.rows.push_back({text_cell("GPU \xff\xfe x")});
    const nlohmann::json j = nlohmann::json::parse(render(l, OutputFormat::json));
    CHECK(j[0]["name"] == "GPU \xEF\xBF\xBD\xEF\xBF\xBD x");
    const nlohmann::json r = nlohmann::json::parse(render_record(l, OutputFormat::json));
    CHECK(r["name"] == "GPU \xEF\xBF\xBD\xEF\xBF\xBD x");

    // End to end: a cache holding such a device name (as an import or merge can bring), listed with --json.
    TempPath file;
    {
      Cache c(file.str());
      DeviceInfo d = h100();
      d.name = "NVIDIA \xc3\x28 H100";  // an invalid two-byte sequence
      tune(c, d, problem(M), config(256, 4));
    }
    std::ostringstream o, e;
    REQUIRE(run(parse_command_line({"show", "--cache", file.str(), "--json"}), o, e) == 0);
    const nlohmann::json shown = nlohmann::json::parse(o.str());
    REQUIRE(shown.size() == 1);
    CHECK(shown[0]["device"] == "NVIDIA \xEF\xBF\xBD( H100");
  }

  TEST_CASE("error messages are printed as one line, control characters and invalid UTF-8 escaped") {
    CHECK(printable_line("plain message") == "plain message");
    CHECK(printable_line("bad \x1b[31mred\x1b[0m") == "bad \\x1b[31mred\\x1b[0m");
    CHECK(printable_line("line one\nline two\r\n") == "line one\\nline two");
    CHECK(printable_line("tab\there, bell\a, del\x7f") == "tab\\there, bell\\x07, del\\x7f");
    CHECK(printable_line("caf\xc3\xa9 \xe2\x82\xac") == "caf\xc3\xa9 \xe2\x82\xac");  // UTF-8 kept: e-acute, euro
    CHECK(printable_line("csi \xc2\x9b" "31m") == "csi \\xc2\\x9b31m");                // C1 control escaped
    CHECK(printable_line("raw \x9b" "31m \xff") == "raw \\x9b31m \\xff");              // not UTF-8 at all
    CHECK(printable_line("overlong \xc0\xaf, surrogate \xed\xa0\x80") ==
          "overlong \\xc0\\xaf, surrogate \\xed\\xa0\\x80");
    CHECK(printable_line("cut \xe2\x82") == "cut \\xe2\\x82");
    CHECK(printable_line(std::string("nul \0 byte", 10)) == "nul \\x00 byte");
  }
}
