// SPDX-License-Identifier: MIT
// Reading a snapshot back into a trace, in the order that trusts nothing it has not checked: the container
// (snapshotframing), the columns planned from the header (snapshotcolumns), decoded (sectiondecoder), checked
// (snapshotvalidation), then the header's small fields set (snapshotheader).
#include "model/snapshotaccess.h"
#include "model/tracerules.h"
#include "parsers/snapshot/bytesource.h"
#include "parsers/snapshot/sectiondecoder.h"
#include "parsers/snapshot/snapshot.h"
#include "parsers/snapshot/snapshotcolumns.h"
#include "parsers/snapshot/snapshotframing.h"
#include "parsers/snapshot/snapshotheader.h"
#include "parsers/snapshot/snapshotvalidation.h"

namespace timesink::parsers::snapshot {

namespace {

/// Reads the trace from `source`; a failure is reported with `name` in front of what is wrong.
ImportResult readFrom(const ByteSource& source, const std::string& name, const ImportOptions& options,
                      ProgressSink* progress, const std::string& sourcePath)
{
    auto failure = [&name](ImportErrorKind kind, const std::string& what) {
        return ImportResult::failure(kind, name + ": " + what);
    };
    pb::Header h;
    const HeaderRead read = readHeader(source, h);
    if (!read.ok)
        return failure(read.notSnapshot ? ImportErrorKind::NotRecognised : ImportErrorKind::Malformed, read.error);
    auto trace = model::SnapshotAccess::makeTrace();
    ColumnPlan plan;
    std::string error = planColumns(h, read.sectionsEnd, options.maxDecompressedBytes, *trace, plan);
    if (error.empty())
        error = decodeSections(source, plan, options, progress);
    if (error == "cancelled")
        return failure(ImportErrorKind::Cancelled, error);
    if (error.empty())
        error = restoreStrings(plan.strings, *trace);
    if (error.empty())
        error = validateTrace(h, *trace, options.threads);
    if (!error.empty())
        return failure(ImportErrorKind::Malformed, error);
    restoreFromHeader(h, sourcePath, *trace);
    // The rules every imported trace obeys (model/tracerules.h: times in range, parents before and around their
    // children, extents and steps that hold), which the analyses rely on without checks.
    if (const std::string issue = model::traceStructureIssue(*trace); !issue.empty())
        return failure(ImportErrorKind::Malformed, corruptSnapshot(issue));
    return ImportResult::success(model::TracePtr(trace.release()));
}

} // namespace

bool readSnapshotSource(const std::filesystem::path& file, SourceIdentity& source, std::string& error,
                        std::string* writer)
{
    ImportErrorKind kind = ImportErrorKind::None;
    auto f = openFileSource(file, error, kind);
    if (!f)
        return false;
    pb::Header header;
    if (const HeaderRead read = readHeader(*f, header); !read.ok) {
        error = file.string() + ": " + read.error;
        return false;
    }
    source.path = header.source().path();
    source.size = header.source().size();
    source.mtimeNs = header.source().mtime_ns();
    source.contentHash = header.source().content_hash();
    if (writer)
        *writer = header.writer();
    return true;
}

ImportResult readSnapshot(const std::filesystem::path& file, const ImportOptions& options, ProgressSink& progress,
                          const std::string& sourcePathOverride)
{
    std::string error;
    ImportErrorKind kind = ImportErrorKind::None;
    auto f = openFileSource(file, error, kind);
    if (!f)
        return ImportResult::failure(kind, error);
    return readFrom(*f, file.string(), options, &progress,
                    sourcePathOverride.empty() ? file.string() : sourcePathOverride);
}

ImportResult readSnapshotBuffer(std::string_view bytes, const ImportOptions& options, const std::string& name)
{
    const MemorySource source(bytes);
    return readFrom(source, name, options, nullptr, name);
}

} // namespace timesink::parsers::snapshot

namespace timesink::parsers {

FormatDescription SnapshotImporter::describe() const
{
    // A snapshot records the format of the trace it was made from; its own id is never reported.
    return {"a Timesink snapshot (.tsnap, written by export or the snapshot cache)", {"*.tsnap"}, {}, {}};
}

} // namespace timesink::parsers
