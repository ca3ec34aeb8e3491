// Output formats of every listing of `autotune` (devices, show, best, compare): an aligned table for people (the
// default), JSON (--json) and CSV (--csv) for programs. A listing is built once, as typed cells, and rendered in
// the chosen format, so that the three always hold the same rows.
//   table: cli/table.hpp's layout, numbers rounded for reading;
//   JSON:  an array of objects (one per row; keys are the columns' keys), numbers unrounded, null for unknown;
//          a single record (`best`) is one object;
//   CSV:   RFC 4180: a header of the columns' keys, CRLF line ends, a field holding a comma, a double quote, CR or
//          LF is quoted and its quotes doubled; numbers unrounded; unknown is an empty field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace autotune::cli {

enum class OutputFormat { table, json, csv };

/// One value of a listing: its text for the table, and its typed value for JSON and CSV.
struct Cell {
  enum class Kind { text, number, integer, boolean, null };
  Kind kind = Kind::null;
  std::string text;        ///< what the table shows
  std::string value;       ///< Kind::text: what JSON and CSV hold (text_cell sets both; the table text may differ)
  double number = 0.0;     ///< Kind::number
  std::int64_t integer = 0;  ///< Kind::integer
  bool boolean = false;    ///< Kind::boolean
};

Cell text_cell(std::string text);
/// A number shown with `decimals` decimals in the table (`suffix` appended there only, e.g. "x"), exact elsewhere.
Cell number_cell(double value, int decimals, const std::string& suffix = "");
Cell integer_cell(std::int64_t value);
/// Shown as yes / no in the table, true / false in JSON and CSV.
Cell bool_cell(bool value);
/// Unknown: `shown` in the table (e.g. "-"), null in JSON, an empty CSV field.
Cell null_cell(std::string shown = "-");

struct Column {
  std::string header;  ///< table header, for people: "time ms"
  std::string key;     ///< JSON key and CSV header, for programs: "median_ms"
};

struct Listing {
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;  ///< each as long as columns
};

/// The whole listing in `format` (always ends with a newline).
std::string render(const Listing& listing, OutputFormat format);
/// The first row of a one-row listing as one record: "header: value" lines for the table, one JSON object, a CSV
/// header and one row.
std::string render_record(const Listing& listing, OutputFormat format);

/// A one-row listing `record` with a nested listing `nested` (`best` and its size table). Table: the record, a blank
/// line, `title` and the nested listing as a table. JSON: the record's object with the nested rows as an array of
/// objects under `key`. CSV: one row per nested row, each the record's fields followed by the nested row's, whose
/// headers are `key`.COLUMN (e.g. sizes.n_from).
std::string render_record_with(const Listing& record, const std::string& key, const std::string& title,
                               const Listing& nested, OutputFormat format);

/// `text` as one line that is safe to print on a terminal: newlines, tabs and other control characters (ESC, DEL,
/// the C1 controls) and bytes that are not UTF-8 are shown escaped (\n, \t, \r, \x1b); printable UTF-8 is kept.
/// Trailing line ends are dropped. For error messages, which quote input (file contents, names, flags) that may come from anyone.
std::string printable_line(std::string_view text);

/// One CSV field, quoted when RFC 4180 requires it.
std::string csv_field(const std::string& value);

}  // namespace autotune::cli
