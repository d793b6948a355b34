// SPDX-License-Identifier: MIT
#include "report/reportoutput.h"

#include "output/outputfile.h"
#include "report/writers/csv/csvwriter.h"
#include "report/writers/html/htmlwriter.h"
#include "report/writers/json/jsonwriter.h"
#include "report/writers/markdown/markdownwriter.h"
#include "report/writers/text/textwriter.h"

#include <functional>

namespace timesink::report {

namespace {

/// `write` into `path` atomically, never over one of `inputs`; false with a message naming the file on failure.
bool writeFile(const std::filesystem::path& path, std::span<const std::filesystem::path> inputs, std::string& error,
               const std::function<void(std::ostream&)>& write)
{
    if (!output::checkOutputPath(path, inputs, error))
        return false;
    output::AtomicFile file(path);
    if (!file.open(error))
        return false;
    write(file.stream());
    return file.commit(error);
}

} // namespace

void writeReport(const ReportModel& model, ReportFormat format, std::ostream& out)
{
    switch (format) {
    case ReportFormat::Text:
        writeAnalysisText(model, out);
        break;
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
    return writeFile(path, inputs, error, [&](std::ostream& out) { writeReport(model, format, out); });
}

bool exportReport(const model::Trace& trace, const analysis::AnalysisResult& result, const std::filesystem::path& path,
                  std::span<const std::filesystem::path> inputs, std::string& error, const ReportOptions& options)
{
    const std::optional<ReportFormat> format = reportFileFormatFromPath(path);
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

void writeCompareReport(const CompareRun& baseline, const CompareRun& candidate, const analysis::CompareResult& result,
                        ReportFormat format, std::ostream& out, const CompareReportOptions& options)
{
    switch (format) {
    case ReportFormat::Text:
        writeCompareText(baseline, candidate, result, out, options);
        break;
    case ReportFormat::Json:
        writeCompareJson(baseline, candidate, result, out);
        break;
    case ReportFormat::Markdown:
        writeCompareMarkdown(baseline, candidate, result, out, options);
        break;
    case ReportFormat::Html:
        writeCompareHtml(baseline, candidate, result, out, options);
        break;
    case ReportFormat::Csv:
        writeCompareCsv(result, out);
        break;
    }
}

bool writeCompareReportFile(const CompareRun& baseline, const CompareRun& candidate,
                            const analysis::CompareResult& result, ReportFormat format,
                            const std::filesystem::path& path, std::span<const std::filesystem::path> inputs,
                            std::string& error, const CompareReportOptions& options)
{
    return writeFile(path, inputs, error,
                     [&](std::ostream& out) { writeCompareReport(baseline, candidate, result, format, out, options); });
}

void writeJobReport(const analysis::JobResult& job, ReportFormat format, const std::string& generator,
                    std::ostream& out)
{
    switch (format) {
    case ReportFormat::Text:
        writeJobText(job, out);
        return;
    case ReportFormat::Json:
        writeJobJson(job, generator, out);
        return;
    case ReportFormat::Markdown:
        writeJobMarkdown(job, generator, out);
        return;
    case ReportFormat::Html:
        writeJobHtml(job, generator, out);
        return;
    case ReportFormat::Csv:
        writeJobCsv(job, out);
        return;
    }
}

void writeJobCompareReport(const JobCompareInput& in, ReportFormat format, std::ostream& out)
{
    switch (format) {
    case ReportFormat::Text:
        writeJobCompareText(in, out);
        break;
    case ReportFormat::Json:
        writeJobCompareJson(in, out);
        break;
    case ReportFormat::Markdown:
        writeJobCompareMarkdown(in, out);
        break;
    case ReportFormat::Html:
        writeJobCompareHtml(in, out);
        break;
    case ReportFormat::Csv:
        writeJobCompareCsv(in.result, out);
        break;
    }
}

bool writeJobCompareReportFile(const JobCompareInput& in, const std::filesystem::path& path,
                               std::span<const std::filesystem::path> inputs, std::string& error)
{
    const std::optional<ReportFormat> format = reportFileFormatFromPath(path);
    if (!format) {
        error = "cannot tell the format from '" + path.string() + "'; name it .html, .md, .json or .csv";
        return false;
    }
    return writeFile(path, inputs, error, [&](std::ostream& out) { writeJobCompareReport(in, *format, out); });
}

} // namespace timesink::report
