// Where `autotune export -o FILE` and `autotune report --output FILE` put their bytes. What happens depends on what
// FILE is, looked at before anything is written:
//   missing or a regular file: a temporary file next to it (FILE.tmp-PID, created exclusively, with the mode of the
//       file it replaces) is written, flushed to disk and renamed over FILE: a reader never sees half a document, and
//       a failed write leaves the earlier FILE as it was and no temporary file behind;
//   a FIFO or a character device (/dev/null, a terminal, /dev/stdout on a pipe): written through, never replaced;
//   a symbolic link: followed. The rules above apply to what it finally points to; a link to a regular file keeps
//       being a link (its target is replaced atomically, in the target's directory), a link to /dev/stdout writes
//       through. A dangling link is refused: creating a file wherever a link points is how a planted link makes a
//       privileged process write somewhere else;
//   anything else (a directory, a block device, a socket): refused with a message naming FILE and what it is.
// Throws autotune::Error (exit code 1) with a one-line message on any failure.
#pragma once

#include <string>
#include <string_view>

namespace autotune::cli {

enum class Written { replaced, through };

/// Writes `content` to `path` as described above; says whether a file was (created or) replaced, or the bytes were
/// written through to a stream (whose reader may be this process's own standard output: print nothing more there).
Written write_output_file(const std::string& path, std::string_view content);

}  // namespace autotune::cli
