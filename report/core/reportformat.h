// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

namespace timesink::report {

/// The formats of every report document (analysis, compare, job, job compare): report/reportoutput.h writes each
/// document in each of them, one writer per format (report/writers/<format>/).
enum class ReportFormat : std::uint8_t { Text, Json, Markdown, Html, Csv };

/// Case-insensitively: "text"/"txt" → Text, "json" → Json, "md"/"markdown" → Markdown, "html"/"htm" → Html,
/// "csv" → Csv; anything else → nullopt.
std::optional<ReportFormat> reportFormatFromName(std::string_view name);
/// By extension, case-insensitively: "out/run.MD" → Markdown, "job.txt" → Text; no or unknown extension → nullopt.
std::optional<ReportFormat> reportFormatFromPath(const std::filesystem::path& path);
/// The format of a report *file* of an analysis or a comparison, by extension: reportFormatFromPath without Text
/// (their text is for a terminal; only `job` writes text to a file). "out/run.txt" → nullopt.
std::optional<ReportFormat> reportFileFormatFromPath(const std::filesystem::path& path);
/// "text", "json", "md", "html", "csv".
std::string_view reportFormatName(ReportFormat format);

} // namespace timesink::report
