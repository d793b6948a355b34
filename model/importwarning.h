// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace timesink::model {

/// Every kind of import warning an importer (or the model's finalize, or a report) can emit. Importers name a
/// kind by this enum, never by a string: the key written to JSON (ImportWarning::kind, `warnings[].kind`), whether
/// the kind is serious and what it means live in one table below, which docs/limits.md ("Import warnings") lists
/// and tests/model/tst_importwarning checks against.
enum class ImportWarningKind : std::uint8_t {
    BadDur,
    BadField,
    BadFlow,
    BadNumber,
    BadRow,
    BadTotal,
    BadTs,
    CommunicationJsonUnmatched,
    CommunicationJsonUnreadable,
    CorruptStream,
    CsvExtraCells,
    CsvShortRow,
    CsvTimelineMismatch,
    CsvUnreadable,
    DbMissingTable,
    DbQueryFailed,
    DbUnreadable,
    DbWalIgnored,
    DecompressedLimit,
    DeviceInfoUnreadable,
    DisjointClocks,
    DuplicateLayerId,
    EmptyTable,
    EventTooLarge,
    ExportChoice,
    ExportedFindingsSkipped,
    FlowDuplicate,
    FlowIncomplete,
    FlowUnpaired,
    FlowUnresolved,
    FlowWithoutId,
    IncompleteRow,
    InvalidUtf8,
    LongLine,
    MalformedEvent,
    MissingDur,
    MissingTs,
    MultipleRuns,
    NegativeDur,
    NoTimeline,
    NotAnObject,
    NotRegularFile,
    OpStatisticMismatch,
    ProfilerInfoUnreadable,
    RankingMismatch,
    ReadError,
    RowsElided,
    StepTraceMismatch,
    TableInterrupted,
    TableUnterminated,
    TimeOutOfRange,
    TimelineUnreadable,
    TotalMismatch,
    TrailingData,
    Truncated,
    UnlinkedFlows,
    UnmatchedBegin,
    UnmatchedEnd,
    UnsupportedEvent,
    UnsupportedPhase,
    ValueTooLarge,
};

struct ImportWarningKindInfo
{
    ImportWarningKind kind;
    std::string_view key; // written to JSON and shown to people; stable across versions
    /// Serious kinds make a trace partial or its times doubtful (truncated, stopped at the decompression limit,
    /// times out of range, disjoint clocks, a damaged or unreadable stream): the viewer's banner shows them, and a
    /// job repeats them for the rank they concern, so nobody trusts findings from a cut capture without knowing.
    bool serious;
    std::string_view meaning; // one line, for docs/limits.md
};

// clang-format off
inline constexpr std::array kImportWarningKinds {
    ImportWarningKindInfo {ImportWarningKind::BadDur, "bad_dur", false, "an event or row whose duration is unusable (negative, not a number) was skipped"},
    ImportWarningKindInfo {ImportWarningKind::BadField, "bad_field", false, "a field of an event (or a top-level value) has the wrong type; the event was kept without it"},
    ImportWarningKindInfo {ImportWarningKind::BadFlow, "bad_flow", false, "a flow event without a usable ts or id was skipped"},
    ImportWarningKindInfo {ImportWarningKind::BadNumber, "bad_number", false, "a numeric cell of an Ascend CSV table is unreadable; the row was skipped"},
    ImportWarningKindInfo {ImportWarningKind::BadRow, "bad_row", false, "a line inside an RKNN layer table is not a layer row and was skipped"},
    ImportWarningKindInfo {ImportWarningKind::BadTotal, "bad_total", false, "an RKNN total line is unreadable"},
    ImportWarningKindInfo {ImportWarningKind::BadTs, "bad_ts", false, "an event or row whose start time is unusable was skipped"},
    ImportWarningKindInfo {ImportWarningKind::CommunicationJsonUnmatched, "communication_json_unmatched", false, "operators of communication.json match no collective of the timeline; their details were not attached"},
    ImportWarningKindInfo {ImportWarningKind::CommunicationJsonUnreadable, "communication_json_unreadable", false, "communication.json could not be read; collectives carry no transfer details"},
    ImportWarningKindInfo {ImportWarningKind::CorruptStream, "corrupt_stream", true, "the compressed stream is damaged; reading stopped there"},
    ImportWarningKindInfo {ImportWarningKind::CsvExtraCells, "csv_extra_cells", false, "a CSV row has more cells than its header; the extra cells were ignored"},
    ImportWarningKindInfo {ImportWarningKind::CsvShortRow, "csv_short_row", false, "a CSV row has fewer cells than its header"},
    ImportWarningKindInfo {ImportWarningKind::CsvTimelineMismatch, "csv_timeline_mismatch", false, "kernel_details / op_summary rows have no device task with the same start and name in the timeline"},
    ImportWarningKindInfo {ImportWarningKind::CsvUnreadable, "csv_unreadable", false, "an Ascend CSV table of the bundle could not be read and was left out"},
    ImportWarningKindInfo {ImportWarningKind::DbMissingTable, "db_missing_table", false, "a table the database export normally has is missing"},
    ImportWarningKindInfo {ImportWarningKind::DbQueryFailed, "db_query_failed", false, "reading a table of the database failed part way; the rows before the failure were kept"},
    ImportWarningKindInfo {ImportWarningKind::DbUnreadable, "db_unreadable", false, "the bundle's database could not be read; the text export was used instead"},
    ImportWarningKindInfo {ImportWarningKind::DbWalIgnored, "db_wal_ignored", false, "the database has a write-ahead log whose changes are not read (the database is opened read-only)"},
    ImportWarningKindInfo {ImportWarningKind::DecompressedLimit, "decompressed_limit", true, "reading stopped at the decompression limit (--max-decompressed); later events are missing"},
    ImportWarningKindInfo {ImportWarningKind::DeviceInfoUnreadable, "device_info_unreadable", false, "a PROF folder's device_N/info.json is unreadable or names neither ai_core_num nor aic_frequency; the chip's peak is not known from it"},
    ImportWarningKindInfo {ImportWarningKind::DisjointClocks, "disjoint_clocks", true, "tracks cluster more than a day apart (data recorded on different clocks or days); kept as imported"},
    ImportWarningKindInfo {ImportWarningKind::DuplicateLayerId, "duplicate_layer_id", false, "an RKNN layer table lists the same layer id twice"},
    ImportWarningKindInfo {ImportWarningKind::EmptyTable, "empty_table", false, "an RKNN layer table header is followed by another without rows in between"},
    ImportWarningKindInfo {ImportWarningKind::EventTooLarge, "event_too_large", false, "an event larger than the per-event limit was skipped"},
    ImportWarningKindInfo {ImportWarningKind::ExportChoice, "export_choice", false, "the bundle holds both a database and a text timeline; only the database was imported"},
    ImportWarningKindInfo {ImportWarningKind::ExportedFindingsSkipped, "exported_findings_skipped", false, "the findings track of a trace Timesink exported was left out (findings are recomputed)"},
    ImportWarningKindInfo {ImportWarningKind::FlowDuplicate, "flow_duplicate", false, "a flow id has more than one start; the first one was kept"},
    ImportWarningKindInfo {ImportWarningKind::FlowIncomplete, "flow_incomplete", false, "flows with only a start or only an end event were skipped"},
    ImportWarningKindInfo {ImportWarningKind::FlowUnpaired, "flow_unpaired", false, "flow ids with only a start or only ends (normal for sampled traces)"},
    ImportWarningKindInfo {ImportWarningKind::FlowUnresolved, "flow_unresolved", false, "flows whose start or end lies on no slice were dropped"},
    ImportWarningKindInfo {ImportWarningKind::FlowWithoutId, "flow_without_id", false, "a flow event without an id was skipped"},
    ImportWarningKindInfo {ImportWarningKind::IncompleteRow, "incomplete_row", false, "an RKNN layer row lacks cells its header announces"},
    ImportWarningKindInfo {ImportWarningKind::InvalidUtf8, "invalid_utf8", false, "strings that were not UTF-8 had their bad bytes replaced by U+FFFD"},
    ImportWarningKindInfo {ImportWarningKind::LongLine, "long_line", false, "lines longer than 1 MiB were skipped (not RKNN table text)"},
    ImportWarningKindInfo {ImportWarningKind::MalformedEvent, "malformed_event", false, "an event that is not valid JSON was skipped"},
    ImportWarningKindInfo {ImportWarningKind::MissingDur, "missing_dur", false, "an 'X' event without a usable dur was kept with zero duration"},
    ImportWarningKindInfo {ImportWarningKind::MissingTs, "missing_ts", false, "an event without a usable ts was skipped"},
    ImportWarningKindInfo {ImportWarningKind::MultipleRuns, "multiple_runs", false, "the folder holds several profiler runs; one was imported"},
    ImportWarningKindInfo {ImportWarningKind::NegativeDur, "negative_dur", false, "an event with a negative duration was kept with zero duration"},
    ImportWarningKindInfo {ImportWarningKind::NoTimeline, "no_timeline", false, "the bundle has no timeline; device tasks come from its CSV tables"},
    ImportWarningKindInfo {ImportWarningKind::NotAnObject, "not_an_object", false, "an element of the event array is not a JSON object and was skipped"},
    ImportWarningKindInfo {ImportWarningKind::NotRegularFile, "not_regular_file", true, "a file of the bundle is not a regular file (FIFO, device, unlistable) and was left out"},
    ImportWarningKindInfo {ImportWarningKind::OpStatisticMismatch, "op_statistic_mismatch", false, "op_statistic counts differ from the kernel table's rows"},
    ImportWarningKindInfo {ImportWarningKind::ProfilerInfoUnreadable, "profiler_info_unreadable", false, "profiler_info*.json is unreadable; rank and profiler level are unknown"},
    ImportWarningKindInfo {ImportWarningKind::RankingMismatch, "ranking_mismatch", false, "an RKNN op-type ranking table disagrees with the layers"},
    ImportWarningKindInfo {ImportWarningKind::ReadError, "read_error", true, "reading the file failed part way; the events before the failure were kept"},
    ImportWarningKindInfo {ImportWarningKind::RowsElided, "rows_elided", false, "the RKNN source leaves layer rows out ('...'), so its total is more than the layers"},
    ImportWarningKindInfo {ImportWarningKind::StepTraceMismatch, "step_trace_mismatch", false, "step_trace_time lists a step the timeline does not have"},
    ImportWarningKindInfo {ImportWarningKind::TableInterrupted, "table_interrupted", false, "an RKNN layer table continues after other text"},
    ImportWarningKindInfo {ImportWarningKind::TableUnterminated, "table_unterminated", false, "an RKNN layer table ends with the input, before its total line (a cut file?)"},
    ImportWarningKindInfo {ImportWarningKind::TimeOutOfRange, "time_out_of_range", true, "events whose times do not fit the model's nanosecond range were dropped"},
    ImportWarningKindInfo {ImportWarningKind::TimelineUnreadable, "timeline_unreadable", false, "a timeline file of the bundle could not be read"},
    ImportWarningKindInfo {ImportWarningKind::TotalMismatch, "total_mismatch", false, "RKNN layers do not add up to the printed total"},
    ImportWarningKindInfo {ImportWarningKind::TrailingData, "trailing_data", false, "bytes after the end of the JSON document were ignored"},
    ImportWarningKindInfo {ImportWarningKind::Truncated, "truncated", true, "the file ends early (cut capture); every event before the cut was kept"},
    ImportWarningKindInfo {ImportWarningKind::UnlinkedFlows, "unlinked_flows", false, "report only: flows with an end that found no slice (a Kineto 'f' without its 's')"},
    ImportWarningKindInfo {ImportWarningKind::UnmatchedBegin, "unmatched_begin", false, "a 'B' event has no matching 'E'; it was closed at the end of the trace"},
    ImportWarningKindInfo {ImportWarningKind::UnmatchedEnd, "unmatched_end", false, "an 'E' event has no open 'B' on its thread and was skipped"},
    ImportWarningKindInfo {ImportWarningKind::UnsupportedEvent, "unsupported_event", false, "Kineto events of an unsupported phase were skipped"},
    ImportWarningKindInfo {ImportWarningKind::UnsupportedPhase, "unsupported_phase", false, "torch_npu/msprof timeline events of a phase that dialect does not use were skipped"},
    ImportWarningKindInfo {ImportWarningKind::ValueTooLarge, "value_too_large", false, "a top-level value next to the event array was too large and was skipped"},
};
// clang-format on

/// The table is indexed by the enum: entry i describes kind i.
consteval bool importWarningTableInOrder()
{
    for (std::size_t i = 0; i < kImportWarningKinds.size(); ++i) {
        if (static_cast<std::size_t>(kImportWarningKinds[i].kind) != i)
            return false;
    }
    return true;
}
static_assert(importWarningTableInOrder(), "kImportWarningKinds must list the kinds in enum order");
static_assert(static_cast<std::size_t>(ImportWarningKind::ValueTooLarge) + 1 == kImportWarningKinds.size(),
              "every ImportWarningKind needs a row in kImportWarningKinds");

[[nodiscard]] constexpr const ImportWarningKindInfo& importWarningInfo(ImportWarningKind kind)
{
    return kImportWarningKinds[static_cast<std::size_t>(kind)];
}

/// The JSON key of a kind ("bad_ts").
[[nodiscard]] constexpr std::string_view key(ImportWarningKind kind)
{
    return importWarningInfo(kind).key;
}

/// The kind with this key, if any (keys read back from a snapshot or written by another build may be unknown).
[[nodiscard]] std::optional<ImportWarningKind> importWarningKindFromKey(std::string_view key);

/// Whether a warning kind (ImportWarning::kind, a key of the table) is serious; unknown keys are not.
[[nodiscard]] bool isSeriousImportWarning(std::string_view kind);

} // namespace timesink::model
