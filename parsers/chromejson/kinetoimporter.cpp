// SPDX-License-Identifier: MIT
#include "parsers/chromejson/kinetoimporter.h"

#include "model/tracebuilder.h"
#include "parsers/chromejson/chromeeventreader.h"
#include "parsers/chromejson/kinetosink.h"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace timesink::parsers::chromejson {

using kineto::contains;
using kineto::KinetoSink;
using kineto::toInt;
using model::TimeNs;

namespace {

// The tail of an uncompressed file, where Kineto writes baseTimeNanoseconds after the events. Reading it first
// saves a second pass; compressed files cannot seek, so they get the second pass when the key comes late.
std::optional<TimeNs> peekBaseTimeAtTail(const std::filesystem::path& path)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        return std::nullopt;
    std::string tail(4096, '\0');
    std::optional<TimeNs> result;
    if (std::fseek(f, -static_cast<long>(tail.size()), SEEK_END) != 0)
        std::fseek(f, 0, SEEK_SET);
    tail.resize(std::fread(tail.data(), 1, tail.size(), f));
    std::fclose(f);
    const std::string_view key = "\"baseTimeNanoseconds\"";
    const auto at = tail.rfind(key);
    if (at == std::string::npos)
        return std::nullopt;
    std::size_t i = at + key.size();
    while (i < tail.size() && (tail[i] == ' ' || tail[i] == ':' || tail[i] == '\n' || tail[i] == '\t'))
        ++i;
    std::size_t j = i;
    while (j < tail.size() && tail[j] >= '0' && tail[j] <= '9')
        ++j;
    if (j < tail.size() && (tail[j] == ',' || tail[j] == '}' || tail[j] == ' ' || tail[j] == '\n'))
        result = toInt(std::string_view(tail).substr(i, j - i));
    return result;
}

} // namespace

FormatDescription KinetoImporter::describe() const
{
    return {"torch.profiler / Kineto Chrome-trace JSON (or the legacy autograd-profiler array)",
            {"*.json", "*.json.gz", "*.json.zst", "*.gz", "*.zst"},
            {},
            {"kineto", "kineto-legacy"}};
}

int KinetoImporter::probe(const SourceProbe& source) const
{
    if (source.isDirectory)
        return 0;
    std::string_view head = source.head;
    if (head.substr(0, 3) == "\xef\xbb\xbf")
        head.remove_prefix(3);
    const auto first = head.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos || (head[first] != '{' && head[first] != '['))
        return 0;
    const bool hasTraceEvents = contains(head, "\"traceEvents\"");
    const bool hasPhase = contains(head, "\"ph\"");
    if (!hasTraceEvents && !hasPhase)
        return 0;
    // Kineto's own marks make it certain; other Chrome traces are accepted with less confidence so a dialect
    // importer that recognises them (torch_npu, msprof) wins.
    // timesink-cli export writes the Kineto dialect, and describes other sources so that this importer rebuilds
    // them: it must win over a dialect importer that recognises the source's process names.
    if (contains(head, "\"otherData\":{\"generator\":\"timesink\""))
        return 96;
    const bool kineto = contains(head, "\"schemaVersion\"") || contains(head, "\"deviceProperties\"")
        || contains(head, "\"cpu_op\"") || contains(head, "\"ac2g\"") || contains(head, "\"CPU functions\"")
        || contains(head, "\"python_function\"") || contains(head, "\"cuda_runtime\"")
        || contains(head, "\"user_annotation\"") || contains(head, "ProfilerStep#")
        || contains(head, "\"distributedInfo\"");
    return kineto ? 80 : 30;
}

ImportResult KinetoImporter::import(const SourceProbe& source, const ImportOptions& options, ProgressSink& progress)
{
    std::optional<TimeNs> base;
    if (source.compression.empty())
        base = peekBaseTimeAtTail(source.path);
    for (int pass = 0; pass < 2; ++pass) {
        model::TraceBuilder builder;
        KinetoSink sink(builder, base, progress);
        ChromeEventReader reader(source.path, options, progress);
        const ChromeReadResult r = reader.read(sink);
        if (sink.needsSecondPass() && pass == 0) {
            base = sink.lateBase();
            continue;
        }
        if (!r.ok())
            return r.status;
        if (sink.usefulEvents() == 0) {
            return model::Status(model::StatusKind::Malformed,
                                 source.path.string() + ": the trace holds no usable events"
                                     + (r.truncated ? " before it is cut off" : "")
                                     + "; expected X/B/E/i/C events with a ts" + describeSkipped(builder.warnings()));
        }
        sink.finish();
        auto& meta = builder.metadata();
        if (!sink.described())
            meta.format = (!r.wrapperObject && !sink.anyCategory()) || sink.legacyExport() ? "kineto-legacy" : "kineto";
        meta.sourcePath = source.path.string();
        if (!source.compression.empty())
            meta.properties.emplace_back("compression", source.compression);
        model::TracePtr trace = builder.finalize();
        if (options.phases) {
            const auto& times = builder.lastFinalizeTimes();
            options.phases->finalizeNs += times.totalNs - times.flowBindingNs;
            options.phases->flowBindingNs += times.flowBindingNs;
        }
        return trace;
    }
    return model::Status(model::StatusKind::Malformed, source.path.string() + ": could not settle the time base");
}

} // namespace timesink::parsers::chromejson
