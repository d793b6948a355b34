// SPDX-License-Identifier: MIT
#include "report/core/reportformat.h"

#include "output/outputfile.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace timesink::report {

std::optional<ReportFormat> reportFormatFromName(std::string_view name)
{
    std::string n(name);
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (n == "text" || n == "txt")
        return ReportFormat::Text;
    if (n == "json")
        return ReportFormat::Json;
    if (n == "md" || n == "markdown")
        return ReportFormat::Markdown;
    if (n == "html" || n == "htm")
        return ReportFormat::Html;
    if (n == "csv")
        return ReportFormat::Csv;
    return std::nullopt;
}

std::optional<ReportFormat> reportFormatFromPath(const std::filesystem::path& path)
{
    return reportFormatFromName(output::lowerExtension(path));
}

std::optional<ReportFormat> reportFileFormatFromPath(const std::filesystem::path& path)
{
    const std::optional<ReportFormat> format = reportFormatFromPath(path);
    if (format == ReportFormat::Text)
        return std::nullopt;
    return format;
}

std::string_view reportFormatName(ReportFormat format)
{
    switch (format) {
    case ReportFormat::Text:
        return "text";
    case ReportFormat::Json:
        return "json";
    case ReportFormat::Markdown:
        return "md";
    case ReportFormat::Html:
        return "html";
    case ReportFormat::Csv:
        return "csv";
    }
    return "md";
}

} // namespace timesink::report
