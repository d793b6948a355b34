// SPDX-License-Identifier: MIT
#pragma once

#include "parsers/rknn/rknncolumnlayout.h"
#include "parsers/rknn/rknnperfreport.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace timesink::parsers {

/// Reads RKNN performance text line by line, wherever it sits in a console log, and collects frames.
///
/// Tables are found by their header line, never by the file name, and cells are assigned to columns by
/// the header titles (see RknnColumnLayout). Recognised, in any mix:
///  * layer tables of rknn-toolkit v1 (`Layer ID  Name  Operator  Uid  Time(us)`, names wrapped onto
///    continuation lines), toolkit2 1.x (`DDR Cycles  NPU Cycles  Total Cycles … WorkLoad(0/1/2)-ImproveTherical`),
///    toolkit2 ≥1.6 / 2.x and the rknpu2 runtime (`Cycles(DDR/NPU/Total)`), and `eval_perf.csv`;
///  * the footer (`Total Operator Elapsed [Per Frame] Time(us): N`, memory totals), the ranking table
///    (`Operator Time Consuming Ranking`), and the summary of a `perf_debug=False` run
///    (`Total Time(us): 17219`, `FPS: 58.08`), which alone makes a frame without layers;
///  * around them: runtime log prefixes (`D RKNN: [05:07:06.566] `), a `---> ` glued to a rule,
///    frequency lists, the chip name (`rk3588` → "RK3588") and library versions.
///
/// Bad rows never stop the reader: a row cut short is joined with the next line when that completes
/// it, otherwise skipped and counted (`incomplete_row`, `bad_row`). finish() cross-checks the per-layer
/// times against the printed total (`total_mismatch`) and the ranking table (`ranking_mismatch`).
///
///   RknnPerfParser p;
///   p.addLine("ID   OpType   Target Time(us) FullName");
///   p.addLine("1    Conv     NPU    375      Conv:conv1");
///   RknnPerfReport r = p.finish(); // one frame, one layer of 375000 ns
class RknnPerfParser
{
public:
    /// One line of text without its line break (a trailing '\r' is ignored).
    void addLine(std::string_view raw);
    /// Ends the input, runs the cross-checks and hands the report over; the parser starts afresh.
    RknnPerfReport finish();

    /// True once the input has shown anything of an RKNN table (a header, a footer or the summary).
    [[nodiscard]] bool sawAnything() const { return !m_report.frames.empty(); }

private:
    enum class Mode : std::uint8_t { Outside, Layers, Ranking, Frequencies };
    enum class RowStatus : std::uint8_t { Ok, Incomplete, Bad };

    void startTable(const RknnColumnLayout& layout);
    void endTable();
    void handleLayerLine(std::string_view line, std::string_view trimmed);
    void handleRankingLine(std::string_view line, std::string_view trimmed);
    void handleOutsideLine(std::string_view line, std::string_view trimmed);
    bool handleFooter(std::string_view trimmed);
    void noteContext(std::string_view raw, std::string_view trimmed);

    RowStatus makeLayer(const std::vector<std::string>& cells, RknnLayer& out, std::string& why) const;
    RowStatus parseRow(std::string_view line, RknnLayer& out, std::string& why, bool tokensOnly) const;
    bool makeRankingRow(const std::vector<std::string>& cells, RknnRankingRow& out) const;
    void flushPending();

    RknnFrame& currentFrame();
    RknnFrame& newFrame();
    void warn(model::ImportWarningKind kind, const std::string& message);
    void setProperty(const std::string& key, const std::string& value);
    void crossCheck(std::size_t frameIndex);

    RknnPerfReport m_report;
    std::map<model::ImportWarningKind, std::size_t> m_warningIndex;
    std::uint64_t m_lineNo = 0;
    Mode m_mode = Mode::Outside;
    std::optional<RknnColumnLayout> m_layout;     // the last layer table's header
    std::optional<RknnColumnLayout> m_rankLayout; // the current ranking table's header
    bool m_sawRows = false;
    bool m_footerSeen = false; // the current frame's footer has been read (the table is over)
    bool m_tableOpen = false;  // rows may still follow for the current layer table
    std::string m_pending;     // a row cut short, waiting for its continuation line
    std::uint64_t m_pendingLine = 0;
    std::string m_pendingWhy;
    std::string m_freqKey;
    std::string m_freqValues;
    bool m_pythonMarkers = false;  // eval_perf() from the Python toolkit
    bool m_runtimeMarkers = false; // a C program / runtime log (rknn_run, "RKNN:" prefixes, "---> ")
};

} // namespace timesink::parsers
