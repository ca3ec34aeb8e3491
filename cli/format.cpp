#include "cli/format.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "cli/table.hpp"

namespace autotune::cli {

namespace {

using Json = nlohmann::ordered_json;

// Names come from caches made elsewhere (imported, merged) and need not be UTF-8: an invalid byte becomes U+FFFD
// instead of failing the whole listing (nlohmann's default throws type_error 316).
std::string dump(const Json& j) { return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n"; }

Json to_json(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::text: return c.value;
    case Cell::Kind::number: return std::isfinite(c.number) ? Json(c.number) : Json(nullptr);
    case Cell::Kind::integer: return c.integer;
    case Cell::Kind::boolean: return c.boolean;
    case Cell::Kind::null: return nullptr;
  }
  return nullptr;
}

// Unrounded: "{}" prints the shortest text that reads back as the same double.
std::string to_csv_text(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::text: return c.value;
    case Cell::Kind::number: return std::isfinite(c.number) ? fmt::format("{}", c.number) : "";
    case Cell::Kind::integer: return std::to_string(c.integer);
    case Cell::Kind::boolean: return c.boolean ? "true" : "false";
    case Cell::Kind::null: return "";
  }
  return "";
}

Json row_object(const Listing& l, const std::vector<Cell>& row) {
  Json o = Json::object();
  for (std::size_t c = 0; c < l.columns.size(); ++c) o[l.columns[c].key] = c < row.size() ? to_json(row[c]) : nullptr;
  return o;
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) line += ',';
    line += csv_field(fields[i]);
  }
  return line + "\r\n";
}

std::string csv(const Listing& l, std::size_t max_rows) {
  std::vector<std::string> header;
  for (const auto& c : l.columns) header.push_back(c.key);
  std::string out = csv_line(header);
  for (std::size_t r = 0; r < l.rows.size() && r < max_rows; ++r) {
    std::vector<std::string> fields;
    for (std::size_t c = 0; c < l.columns.size(); ++c) fields.push_back(c < l.rows[r].size() ? to_csv_text(l.rows[r][c]) : "");
    out += csv_line(fields);
  }
  return out;
}

}  // namespace

Cell text_cell(std::string text) {
  Cell c;
  c.kind = Cell::Kind::text;
  c.value = text;
  c.text = std::move(text);
  return c;
}

Cell number_cell(double value, int decimals, const std::string& suffix) {
  Cell c;
  c.kind = Cell::Kind::number;
  c.number = value;
  c.text = std::isfinite(value) ? fmt::format("{:.{}f}{}", value, decimals, suffix) : "-";
  return c;
}

Cell integer_cell(std::int64_t value) {
  Cell c;
  c.kind = Cell::Kind::integer;
  c.integer = value;
  c.text = std::to_string(value);
  return c;
}

Cell bool_cell(bool value) {
  Cell c;
  c.kind = Cell::Kind::boolean;
  c.boolean = value;
  c.text = value ? "yes" : "no";
  return c;
}

Cell null_cell(std::string shown) {
  Cell c;
  c.kind = Cell::Kind::null;
  c.text = std::move(shown);
  return c;
}

std::string csv_field(const std::string& value) {
  if (value.find_first_of(",\"\r\n") == std::string::npos) return value;
  std::string quoted = "\"";
  for (char ch : value) {
    if (ch == '"') quoted += '"';
    quoted += ch;
  }
  return quoted + "\"";
}

std::string render(const Listing& l, OutputFormat format) {
  switch (format) {
    case OutputFormat::json: {
      Json a = Json::array();
      for (const auto& row : l.rows) a.push_back(row_object(l, row));
      return dump(a);
    }
    case OutputFormat::csv: return csv(l, l.rows.size());
    case OutputFormat::table: break;
  }
  std::vector<std::string> header;
  for (const auto& c : l.columns) header.push_back(c.header);
  Table t(header);
  for (const auto& row : l.rows) {
    std::vector<std::string> texts;
    for (const auto& cell : row) texts.push_back(cell.text);
    t.add(std::move(texts));
  }
  return t.render();
}

std::string render_record(const Listing& l, OutputFormat format) {
  const std::vector<Cell> empty;
  const auto& row = l.rows.empty() ? empty : l.rows.front();
  switch (format) {
    case OutputFormat::json: return dump(row_object(l, row));
    case OutputFormat::csv: return csv(l, 1);
    case OutputFormat::table: break;
  }
  std::size_t width = 0;
  for (const auto& c : l.columns) width = std::max(width, c.header.size());
  std::string out;
  for (std::size_t c = 0; c < l.columns.size(); ++c)
    out += fmt::format("{:<{}}  {}\n", l.columns[c].header + ":", width + 1, c < row.size() ? row[c].text : "");
  return out;
}

std::string render_record_with(const Listing& record, const std::string& key, const std::string& title,
                               const Listing& nested, OutputFormat format) {
  const std::vector<Cell> empty;
  const auto& row = record.rows.empty() ? empty : record.rows.front();
  switch (format) {
    case OutputFormat::json: {
      Json o = row_object(record, row);
      Json rows = Json::array();
      for (const auto& r : nested.rows) rows.push_back(row_object(nested, r));
      o[key] = std::move(rows);
      return dump(o);
    }
    case OutputFormat::csv: {
      Listing flat;
      flat.columns = record.columns;
      for (const auto& c : nested.columns) flat.columns.push_back({c.header, key + "." + c.key});
      for (const auto& r : nested.rows) {
        std::vector<Cell> cells = row;
        cells.resize(record.columns.size());
        cells.insert(cells.end(), r.begin(), r.end());
        flat.rows.push_back(std::move(cells));
      }
      return csv(flat, flat.rows.size());
    }
    case OutputFormat::table: break;
  }
  return render_record(record, format) + "\n" + title + "\n" + render(nested, format);
}

std::string printable_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);  // says nothing
  std::string out;
  out.reserve(text.size());
  auto hex = [&](unsigned char c) { out += fmt::format("\\x{:02x}", c); };
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c == '\n') out += "\\n";
      else if (c == '\t') out += "\\t";
      else if (c == '\r') out += "\\r";
      else if (c < 0x20 || c == 0x7f) hex(c);
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence (no overlong form, no surrogate, at most U+10FFFF) is kept, except the C1
    // controls U+0080..U+009F, which some terminals obey like ESC; any other byte is shown as \xNN.
    const std::size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    bool ok = len > 0 && c <= 0xf4 && i + len <= text.size();
    for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    if (ok) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0) || (c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 >= 0x90))
        ok = false;
      if (c == 0xc2 && c1 < 0xa0) ok = false;  // C1 control
    }
    if (!ok) {
      hex(c);
      ++i;
      continue;
    }
    out.append(text.substr(i, len));
    i += len;
  }
  return out;
}

}  // namespace autotune::cli
