// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>
#include <fstream>
#include <span>
#include <string>

namespace timesink::output {

/// Writes a file so that readers only ever see the old file or the complete new one: the content goes to
/// a temporary file in the destination's directory (same file system, so the rename is atomic), and
/// commit() flushes, fsyncs and renames it over the destination. An AtomicFile destroyed without a
/// successful commit() removes its temporary file, so a failed or interrupted write leaves nothing behind.
///
/// Example:
///   AtomicFile out("reports/run1.html");
///   std::string error;
///   if (!out.open(error)) return fail(error);     // "cannot create a file in 'reports': No such file…"
///   out.stream() << html;
///   if (!out.commit(error)) return fail(error);   // "cannot write 'reports/run1.html': No space left…"
class AtomicFile
{
public:
    explicit AtomicFile(std::filesystem::path target);
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    ~AtomicFile();

    /// Creates the temporary file (mode of an existing destination is kept, else 0644). Refuses a destination
    /// that is a folder or a special file (device node, FIFO, socket).
    bool open(std::string& error);
    /// The stream to write to; valid between a successful open() and commit().
    [[nodiscard]] std::ostream& stream() { return m_stream; }
    /// Flushes, syncs and renames onto the target. False (and the temporary file removed) on any write error.
    bool commit(std::string& error);
    /// Drops what was written; the destination is left untouched.
    void discard();

    [[nodiscard]] const std::filesystem::path& target() const { return m_target; }
    [[nodiscard]] const std::filesystem::path& temporaryPath() const { return m_temporary; }

private:
    std::filesystem::path m_target;
    std::filesystem::path m_temporary;
    std::ofstream m_stream;
    bool m_open = false;
};

/// The extension of `path` without its dot, lower-cased: "out/run.MD" → "md"; none → "". Report and trace formats
/// are both told from it.
std::string lowerExtension(const std::filesystem::path& path);

/// True when `a` and `b` name the same existing file or folder (symlinks, `..`, hard links resolved).
bool sameFile(const std::filesystem::path& a, const std::filesystem::path& b);

/// Refuses an output path that would overwrite one of the inputs, lies inside an input folder (a profiler
/// bundle), is an existing folder, or is a special file (device node, FIFO, socket — also through a symlink):
/// returns false and explains why in `error`, e.g. "refusing to overwrite the input 'run.json' …".
/// Every file a command reads counts as an input (compare's --op-map too).
bool checkOutputPath(const std::filesystem::path& output, std::span<const std::filesystem::path> inputs,
                     std::string& error);

} // namespace timesink::output
