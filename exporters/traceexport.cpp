// SPDX-License-Identifier: MIT
#include "exporters/traceexport.h"

#include "exporters/chromejsonexporter.h"
#include "exporters/perfettoexporter.h"
#include "output/outputfile.h"

#include <algorithm>
#include <cctype>

namespace timesink::exporters {

std::vector<std::string> traceFileFilters()
{
    return {"Perfetto trace (*.pftrace)", "Chrome trace JSON (*.json)"};
}

std::optional<TraceFormat> traceFormatFromName(std::string_view name)
{
    std::string n(name);
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
    if (n == "pftrace" || n == "perfetto" || n == "perfetto-trace" || n == "pb")
        return TraceFormat::Perfetto;
    if (n == "json" || n == "chrome")
        return TraceFormat::ChromeJson;
    return std::nullopt;
}

std::optional<TraceFormat> traceFormatFromPath(const std::filesystem::path& path)
{
    return traceFormatFromName(output::lowerExtension(path));
}

bool exportTrace(const model::Trace& trace, std::span<const analysis::Finding> findings, TraceFormat format,
                 const std::filesystem::path& path, std::span<const std::filesystem::path> inputs, std::string& error,
                 const TraceExportOptions& options)
{
    if (!output::checkOutputPath(path, inputs, error))
        return false;
    output::AtomicFile file(path);
    if (!file.open(error))
        return false;
    std::string writeError;
    bool ok = false;
    if (format == TraceFormat::Perfetto)
        ok = PerfettoExporter(trace, findings, options).write(file.stream(), writeError);
    else
        ok = ChromeJsonExporter(trace, findings, options).write(file.stream(), writeError);
    if (!ok) {
        error = "cannot export to '" + path.string() + "': " + writeError;
        return false; // the AtomicFile removes its temporary file
    }
    return file.commit(error);
}

} // namespace timesink::exporters
