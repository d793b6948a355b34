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
    auto failure
        = [&name](model::StatusKind kind, const std::string& what) { return model::Status(kind, name + ": " + what); };
    pb::Header h;
    const model::Expected<std::uint64_t> sectionsEnd = readHeader(source, h);
    if (!sectionsEnd.ok())
        return failure(sectionsEnd.status().kind(), sectionsEnd.status().message());
    auto trace = model::SnapshotAccess::makeTrace();
    ColumnPlan plan;
    if (const std::string error = planColumns(h, sectionsEnd.value(), options.maxDecompressedBytes, *trace, plan);
        !error.empty())
        return failure(model::StatusKind::Malformed, error);
    // Cancelled or damaged: the decoder's kind is kept, so that callers tell the two apart.
    if (const model::Status decoded = decodeSections(source, plan, options, progress); !decoded.ok())
        return failure(decoded.kind(), decoded.message());
    std::string error = restoreStrings(plan.strings, *trace);
    if (error.empty())
        error = validateTrace(h, *trace, options.threads);
    if (!error.empty())
        return failure(model::StatusKind::Malformed, error);
    restoreFromHeader(h, sourcePath, *trace);
    // The rules every imported trace obeys (model/tracerules.h: times in range, parents before and around their
    // children, extents and steps that hold), which the analyses rely on without checks.
    if (const std::string issue = model::traceStructureIssue(*trace); !issue.empty())
        return failure(model::StatusKind::Malformed, corruptSnapshot(issue));
    return model::TracePtr(trace.release());
}

} // namespace

model::Expected<SourceIdentity> readSnapshotSource(const std::filesystem::path& file, std::string* writer)
{
    auto f = openFileSource(file);
    if (!f)
        return f.status();
    pb::Header header;
    if (const model::Expected<std::uint64_t> read = readHeader(*f.value(), header); !read.ok())
        return model::Status(read.status().kind(), file.string() + ": " + read.status().message());
    SourceIdentity source;
    source.path = header.source().path();
    source.size = header.source().size();
    source.mtimeNs = header.source().mtime_ns();
    source.contentHash = header.source().content_hash();
    if (writer)
        *writer = header.writer();
    return source;
}

ImportResult readSnapshot(const std::filesystem::path& file, const ImportOptions& options, ProgressSink& progress,
                          const std::string& sourcePathOverride)
{
    auto f = openFileSource(file);
    if (!f)
        return f.status();
    return readFrom(*f.value(), file.string(), options, &progress,
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
