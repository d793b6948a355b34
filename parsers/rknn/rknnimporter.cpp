// SPDX-License-Identifier: MIT
// Reading RKNN text: detection (probe) and the line-by-line read into a report (import); the report becomes a
// trace in rknntracebuilder.cpp.
#include "parsers/rknn/rknnimporter.h"

#include "parsers/common/inputstream.h"
#include "parsers/rknn/rknnperfparser.h"

#include <algorithm>
#include <string_view>

namespace timesink::parsers {

namespace {

constexpr std::size_t kChunkBytes = 1 << 20;
constexpr std::size_t kMaxLineBytes = 1 << 20; // longer lines are not table text

/// Feeds `text` to the parser line by line; the last piece without '\n' stays in `carry`.
class LineSplitter
{
public:
    explicit LineSplitter(RknnPerfParser& parser)
        : m_parser(parser)
    {
    }
    void feed(std::string_view text)
    {
        while (!text.empty()) {
            const std::size_t nl = text.find('\n');
            const std::string_view piece = text.substr(0, nl);
            if (!m_skipping) {
                if (m_carry.size() + piece.size() > kMaxLineBytes) {
                    m_skipping = true;
                    ++m_longLines;
                    m_carry.clear();
                } else {
                    m_carry.append(piece);
                }
            }
            if (nl == std::string_view::npos)
                return;
            if (!m_skipping)
                m_parser.addLine(m_carry);
            else
                m_parser.addLine({}); // keep line numbers right
            m_carry.clear();
            m_skipping = false;
            text.remove_prefix(nl + 1);
        }
    }
    void end()
    {
        if (!m_carry.empty() && !m_skipping)
            m_parser.addLine(m_carry);
        m_carry.clear();
    }
    [[nodiscard]] std::uint64_t longLines() const { return m_longLines; }

private:
    RknnPerfParser& m_parser;
    std::string m_carry;
    bool m_skipping = false;
    std::uint64_t m_longLines = 0;
};

} // namespace

FormatDescription RknnImporter::describe() const
{
    return {"an RKNN perf table or runtime log (eval_perf(), perf-detail)", {"*.txt", "*.log", "*.csv"}, {}, {"rknn"}};
}

int RknnImporter::probe(const SourceProbe& source) const
{
    if (source.isDirectory || source.head.empty())
        return 0;
    const std::string_view head = source.head;
    if (head.find('\0') != std::string_view::npos)
        return 0; // binary
    const std::size_t first = head.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos || head[first] == '{' || head[first] == '[')
        return 0; // JSON traces
    RknnPerfParser parser;
    LineSplitter lines(parser);
    // The head may end in the middle of a line; only whole lines are judged.
    const std::size_t lastNl = head.rfind('\n');
    lines.feed(lastNl == std::string_view::npos ? head : head.substr(0, lastNl + 1));
    if (lastNl == std::string_view::npos)
        lines.end();
    const RknnPerfReport report = parser.finish();
    int score = 0;
    for (const RknnFrame& f : report.frames) {
        if (f.hasLayerTable && !f.layers.empty())
            score = std::max(score, 95);
        else if (f.hasLayerTable)
            score = std::max(score, 80);
        else if (f.elapsedTotalNs || !f.ranking.empty())
            score = std::max(score, 70);
        else if (f.totalTimeNs && !f.fps.empty())
            score = std::max(score, 60);
        else if (f.totalTimeNs) {
            for (const auto& [key, value] : report.properties) {
                if (key.find("_frequencies_hz") != std::string::npos)
                    score = std::max(score, 50);
            }
        }
    }
    if (score == 0 && head.size() >= 64 * 1024 - 1
        && (head.find("RKNN: [") != std::string_view::npos || head.find("rknn_run") != std::string_view::npos)) {
        // A long runtime log whose table starts further in: worth a full read, but any real format wins.
        score = 10;
    }
    return score;
}

ImportResult RknnImporter::import(const SourceProbe& source, const ImportOptions& options, ProgressSink& progress)
{
    const std::string path = source.path.string();
    std::string error;
    auto stream = InputStream::open(source.path, error, DecompressionLimits::from(options));
    if (!stream)
        return model::Status(model::StatusKind::CannotRead, error);

    RknnPerfParser parser;
    LineSplitter lines(parser);
    std::string buffer(kChunkBytes, '\0');
    while (true) {
        if (progress.cancelled())
            return model::Status(model::StatusKind::Cancelled, path + ": import cancelled");
        const std::size_t n = stream->read(buffer.data(), buffer.size());
        if (n == 0)
            break;
        lines.feed(std::string_view(buffer.data(), n));
        progress.report(stream->fileBytesRead(), stream->fileSize(), "reading RKNN perf table");
    }
    lines.end();
    const bool overLimit = stream->limitHit();
    if (stream->bytesProduced() == 0 && !stream->error().empty())
        return model::Status(model::StatusKind::CannotRead, "cannot read " + path + ": " + stream->error());

    RknnPerfReport report = parser.finish();
    if (report.frames.empty()) {
        return model::Status(
            model::StatusKind::NotRecognised,
            path
                + ": not an RKNN perf table (no layer table header such as 'ID  OpType ... Time(us) ... FullName' or "
                  "'Layer ID  Name  Operator  Uid  Time(us)', no ranking table and no 'Total Time(us)' summary)");
    }
    bool anyContent = false;
    for (const RknnFrame& f : report.frames)
        anyContent = anyContent || !f.layers.empty() || f.elapsedTotalNs || f.totalTimeNs || !f.ranking.empty();
    if (!anyContent) {
        std::string why = report.warnings.empty() ? std::string("no row under it") : report.warnings.front().message;
        return model::Status(model::StatusKind::Malformed,
                             path + ": RKNN perf table header at line "
                                 + std::to_string(report.frames.front().headerLine)
                                 + " but no layer could be read: " + why);
    }
    if (lines.longLines() > 0) {
        report.warnings.push_back(RknnWarning {model::ImportWarningKind::LongLine, lines.longLines(),
                                               "lines longer than 1 MiB were skipped (not RKNN table text)"});
    }
    if (stream->truncated())
        report.warnings.push_back(
            RknnWarning {model::ImportWarningKind::Truncated, 1, "the compressed file ends early; read up to the cut"});
    if (!stream->error().empty())
        report.warnings.push_back(RknnWarning {model::ImportWarningKind::ReadError, 1, stream->error()});
    if (overLimit)
        report.warnings.push_back(RknnWarning {model::ImportWarningKind::DecompressedLimit, 1, stream->limitMessage()});
    progress.report(stream->fileSize(), stream->fileSize(), "building trace");
    return buildTrace(std::move(report), path);
}

} // namespace timesink::parsers
