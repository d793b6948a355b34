// SPDX-License-Identifier: MIT
// The Chrome JSON event reader in all its dialects: the first byte picks the file name detection sees (Kineto
// trace, torch_npu trace_view.json, msprof_*.json, legacy array), the rest is the file.
//
// Also differential: the reader parses events in the buffers they were read into, carrying an element cut by a
// read into the next buffer and copying what cannot stay in place, and decodes them with its plain decoder where
// it can. Read in pieces of 1-64 bytes (the first byte's upper bits) with the plain decoder, it must hand over
// exactly what one whole read with simdjson alone hands over.
#include "fuzzfile.h"
#include "parsers/chromejson/chromeeventreader.h"

#include <algorithm>
#include <bit>
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
        log.append("|").append(std::to_string(e.pidIsNumber)).append(std::to_string(e.pidNumber));
        log.append("|").append(std::to_string(e.tidIsNumber)).append(std::to_string(e.tidNumber));
        log.append("|").append(std::to_string(e.hasPid)).append(std::to_string(e.hasTid));
        log.append(std::to_string(e.hasId)).append(std::to_string(e.hasArgs));
        for (const ChromeArg& a : e.args) {
            log.append(" ").append(a.key).append(":").append(std::to_string(static_cast<int>(a.kind))).append(":");
            log.append(a.text).append(":").append(std::to_string(a.i)).append(":");
            log.append(std::to_string(std::bit_cast<std::uint64_t>(a.d)));
        }
        log.append("\n");
    }
    void onWarning(timesink::model::ImportWarningKind kind, std::string_view message, std::uint64_t count) override
    {
        warnings.push_back(std::string(timesink::model::key(kind)) + "|" + std::string(message) + "|"
                           + std::to_string(count));
    }
};

std::string readWith(const std::filesystem::path& path, std::size_t chunk, bool plain)
{
    ProgressSink progress;
    ImportOptions options = timesink::fuzz::fuzzOptions();
    ChromeEventReader reader(path, options, progress);
    reader.setReadChunkBytes(chunk);
    reader.setPlainDecoding(plain);
    Recorder sink;
    const ChromeReadResult r = reader.read(sink);
    std::sort(sink.warnings.begin(), sink.warnings.end());
    std::string out = std::to_string(static_cast<int>(r.status.kind())) + " " + r.status.message() + " "
        + std::to_string(r.events) + (r.truncated ? " truncated" : "") + (r.wrapperObject ? " wrapper" : "") + "\n"
        + sink.log;
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
        if (readWith(path, chunk, true) != readWith(path, std::size_t(1) << 20, false))
            __builtin_trap(); // reading in pieces, or the plain decoder, changed what was read
    }
    return 0;
}
