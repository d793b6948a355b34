// SPDX-License-Identifier: MIT
#include "report/reportoutput.h"

#include "output/outputfile.h"
#include "report/csvwriter.h"
#include "report/htmlwriter.h"
#include "report/jsonreportwriter.h"
#include "report/markdownwriter.h"

#include <algorithm>
#include <cctype>

namespace timesink::report {

namespace {

std::string lower(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

} // namespace

std::optional<ReportFormat> reportFormatFromName(std::string_view name)
{
    const std::string n = lower(name);
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

std::string_view reportFormatName(ReportFormat format)
{
    switch (format) {
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

void writeReport(const ReportModel& model, ReportFormat format, std::ostream& out)
{
    switch (format) {
    case ReportFormat::Json:
        writeJsonReport(model, out);
        break;
    case ReportFormat::Markdown:
        writeMarkdownReport(model, out);
        break;
    case ReportFormat::Html:
        writeHtmlReport(model, out);
        break;
    case ReportFormat::Csv:
        writeCsvFindings(model, out);
        break;
    }
}

bool writeReportFile(const ReportModel& model, ReportFormat format, const std::filesystem::path& path,
                     std::span<const std::filesystem::path> inputs, std::string& error)
{
    if (!output::checkOutputPath(path, inputs, error))
        return false;
    output::AtomicFile file(path);
    if (!file.open(error))
        return false;
    writeReport(model, format, file.stream());
    return file.commit(error);
}

bool exportReport(const model::Trace& trace, const analysis::AnalysisResult& result, const std::filesystem::path& path,
                  std::span<const std::filesystem::path> inputs, std::string& error, const ReportOptions& options)
{
    const std::optional<ReportFormat> format = reportFormatFromPath(path);
    if (!format) {
        error = "cannot tell the report format from '" + path.string() + "'; name it .html, .md, .json or .csv";
        return false;
    }
    // Checked before the model is built: refusing is cheap, building is not.
    if (!output::checkOutputPath(path, inputs, error))
        return false;
    return writeReportFile(buildReportModel(trace, result, options), *format, path, inputs, error);
}

std::vector<std::string> reportFileFilters()
{
    return {"HTML report (*.html)", "Markdown report (*.md)", "JSON report (*.json)", "CSV of findings (*.csv)"};
}

} // namespace timesink::report
