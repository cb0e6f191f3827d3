#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "islands/log/crc32c.hpp"
#include "islands/log/private_file.hpp"
#include "islands/log/log_record.hpp"
#include "islands/log/redo_entry.hpp"

namespace py = pybind11;
using namespace islands;

void bind_log(py::module_& m) {
  m.def(
      "read_log",
      [](const std::string& path) {
        py::list records;
        std::uint64_t base = 0, valid = 0, size = 0;
        std::string note;
        {
          const LogFile log = [&] {
            py::gil_scoped_release release;
            return LogFile(path);
          }();
          base = log.base_lsn();
          valid = log.valid_bytes();
          size = log.file_bytes();
          note = log.tail_note();
          static const char* names[] = {"?", "file_header", "commit", "prepare", "decision_commit",
                                        "commit_prepared", "abort_prepared", "epoch", "command"};
          for (const LogRecord& r : log.records()) {
            py::dict d;
            d["lsn"] = r.header.lsn;
            d["offset"] = r.offset;
            d["length"] = r.header.length;
            d["type"] = names[r.header.type];
            d["txn"] = r.header.txn;
            d["aux"] = r.header.aux;
            d["rows"] = r.redo_rows;
            std::vector<std::uint64_t> keys, deleted;
            std::vector<std::size_t> widths;
            if (r.type() != LogRecordType::command) for_each_redo_entry(r.redo, r.redo_bytes,
                                [&](std::uint64_t key, const std::int32_t* image, std::size_t columns) {
                                  if (image) widths.push_back(columns);
                                  (image ? keys : deleted).push_back(key);
                                });
            d["keys"] = keys;
            d["columns"] = widths;
            d["deleted"] = deleted;
            d["participants"] = r.participants;
            d["command"] = r.command;
            records.append(d);
          }
        }
        py::dict out;
        out["base_lsn"] = base;
        out["valid_bytes"] = valid;
        out["file_bytes"] = size;
        out["tail_note"] = note;
        out["records"] = records;
        return out;
      },
      py::arg("path"),
      "Reads and verifies one instance log: its records (lsn, offset, type, txn, aux, rows, "
      "keys of the after-images and their columns, keys of the deletes as deleted, participants, a command record's words as command) and what was cut from a torn tail. Raises RuntimeError for corruption in "
      "the middle (with LSN and file offset).");
  m.def(
      "crc32c", [](py::bytes data) {
        const std::string s = data;
        return crc32c(s.data(), s.size());
      },
      py::arg("data"), "CRC-32C (Castagnoli) of bytes, as the log's records use.");
  m.def("check_log_directory", &check_log_directory, py::arg("directory"),
        "Raises ConfigError (log.directory) unless the directory is a real directory (not a symbolic link) owned by "
        "this user and not writable by its group or others, as every instance checks before it logs.");
}
