// A plain-text table with aligned columns (what `autotune show` and `devices` print).
// Hand-written: fmt pads fields but has no table layout, and a dependency for ~40 lines is not worth it.
#pragma once

#include <string>
#include <vector>

namespace autotune::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::size_t size() const { return rows_.size(); }
  /// Columns separated by two spaces, a dashed rule under the header; numbers are not special-cased.
  std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace autotune::cli
