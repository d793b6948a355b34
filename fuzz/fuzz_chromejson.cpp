// SPDX-License-Identifier: MIT
// The Chrome JSON event reader in all its dialects: the first byte picks the file name detection sees (Kineto
// trace, torch_npu trace_view.json, msprof_*.json, legacy array), the rest is the file.
//
// Also differential: the reader parses events in the buffers they were read into, carrying an element cut by a
// read into the next buffer and copying what cannot stay in place. Read in pieces of 1-64 bytes (the first
// byte's upper bits) it must hand over exactly what one whole read hands over.
#include "fuzzfile.h"
#include "parsers/chromejson/chromeeventreader.h"

#include <algorithm>
#include <string>
#include <vector>

namespace {

using namespace timesink::parsers;
using namespace timesink::parsers::chromejson;

/// Everything a read hands over, as text: events and top-level values in order, warnings as a sorted list (they
/// travel with the batch that was open when they were found, so their place among events depends on the reads).
class Recorder : public ChromeEventSink
{
public:
    std::string log;
    std::vector<std::string> warnings;

    void onTopLevel(std::string_view key, std::string_view raw) override
    {
        log.append("top ").append(key).append("=").append(raw).append("\n");
    }
    void onEvent(const ChromeEvent& e) override
    {
        log.append(1, e.ph ? e.ph : '?').append(" ").append(e.name).append("|").append(e.cat).append("|");
        log.append(e.pid).append("|").append(e.tid).append("|").append(e.id).append("|").append(e.bp).append("|");
        log.append(e.scope).append("|").append(e.hasTs ? std::to_string(e.ts) : "-").append("|");
        log.append(e.hasDur ? std::to_string(e.dur) : "-").append("|").append(std::to_string(e.badFields));
        for (const ChromeArg& a : e.args) {
            log.append(" ").append(a.key).append(":").append(std::to_string(static_cast<int>(a.kind))).append(":");
            log.append(a.text).append(":").append(std::to_string(a.i));
        }
        log.append("\n");
    }
    void onWarning(timesink::model::ImportWarningKind kind, std::string_view message, std::uint64_t count) override
    {
        warnings.push_back(std::string(timesink::model::key(kind)) + "|" + std::string(message) + "|"
                           + std::to_string(count));
    }
};

std::string readWith(const std::filesystem::path& path, std::size_t chunk)
{
    ProgressSink progress;
    ImportOptions options = timesink::fuzz::fuzzOptions();
    ChromeEventReader reader(path, options, progress);
    reader.setReadChunkBytes(chunk);
    Recorder sink;
    const ChromeReadResult r = reader.read(sink);
    std::sort(sink.warnings.begin(), sink.warnings.end());
    std::string out = std::to_string(static_cast<int>(r.errorKind)) + " " + r.error + " " + std::to_string(r.events)
        + (r.truncated ? " truncated" : "") + (r.wrapperObject ? " wrapper" : "") + "\n" + sink.log;
    for (const std::string& w : sink.warnings)
        out.append(w).append("\n");
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return 0;
    static constexpr const char* kNames[] = {"trace.json", "trace_view.json", "msprof_0_1.json", "legacy.json"};
    const char* name = kNames[data[0] % 4];
    const std::filesystem::path path = timesink::fuzz::writeInput(name, data + 1, size - 1);
    timesink::fuzz::importPath(path);
    if (size <= (std::size_t(512) << 10)) {
        const std::size_t chunk = 1 + (data[0] >> 2);
        if (readWith(path, chunk) != readWith(path, std::size_t(1) << 20))
            __builtin_trap(); // reading in pieces changed what was read
    }
    return 0;
}
