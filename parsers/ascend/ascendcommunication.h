// SPDX-License-Identifier: MIT
#pragma once

#include "model/ranklinks.h"
#include "model/tracebuilder.h"
#include "model/types.h"

#include <filesystem>
#include <string>
#include <vector>

namespace timesink::parsers {

/// One operation of `communication.json` (torch_npu Level1+, distributed runs), as the Ascend tools measured it.
/// Layout: {"step50": {"collective": {"hcom_allReduce__586_0_1@<group hash>": {"Communication Time Info":
/// {"Start Timestamp(us)": 1736408883732241.5, "Elapse Time(ms)": 79.09, "Transit Time(ms)": 0.239,
/// "Wait Time(ms)": 5.647, "Synchronization Time(ms)": 5.616, "Idle Time(ms)": 73.2, …}, …}, …}, "p2p": {…}}}.
/// Note the units: µs for the start, ms for the durations. "Total Op Info" (the step's sums) is skipped.
/// "Wait Time" is the op's `Notify_Wait` time on its main plane: waiting for the peers' signals.
struct CommunicationOpRow
{
    std::string name;        // the op as the timeline names it: "hcom_allReduce__586_0_1" (the "@hash" dropped)
    model::TimeNs start = 0; // ns; the JSON's µs doubles carry about 0.25 µs of precision at epoch times
    double elapseMs = 0;
    double transitMs = 0;
    double waitMs = 0;
    double synchronizationMs = 0;
    double idleMs = 0;
    /// The main link of "Communication Bandwidth Info": of HCCS, RDMA, PCIE and SIO the transport that moved the most
    /// bytes ("" when none moved any; SDMA is left out: it is the copy engine under HCCS/PCIE/SIO and counts the same
    /// bytes again), with its "Transit Size(MB)" and "Transit Time(ms)" (Bandwidth(GB/s) = MB / ms).
    std::string linkType;
    double linkSizeMb = 0;
    double linkTimeMs = 0;
};

struct CommunicationOpTable
{
    std::vector<CommunicationOpRow> rows; // by start
    std::string error;                    // the file could not be used at all (names the file)
    std::size_t skipped = 0;              // operations without a usable start or wait time
};

/// Reads communication.json (at most 64 MiB; a regular file). Fails with `error` set for a file that cannot be
/// read or is not the object above.
CommunicationOpTable readCommunicationJson(const std::filesystem::path& path);

/// One rank pair of `communication_matrix.json` (torch_npu Level1+, distributed runs), summed over the file's
/// operations: `src` sent `bytes` to `dst` over `transport` in `transitNs` (GB/s = bytes / ns).

struct RankLinkTable
{
    std::vector<model::RankLink> rows; // by (src, dst, transport); the transport as the file gives it
    std::string error;                 // the file could not be used at all (names the file)
    std::size_t skipped = 0;           // pair entries with a bad key or without usable size and time
};

/// Reads communication_matrix.json (at most 64 MiB; a regular file).
/// Layout: {"step50": {"collective": {"allreduce-top1@<group hash>": {"0-1": {"Transport Type": "HCCS",
/// "Transit Size(MB)": 37.78, "Transit Time(ms)": 2.15, "Bandwidth(GB/s)": 17.55, "Op Name": "…"}, …},
/// "allreduce-total@<group hash>": {…}, …}, "p2p": {…}}}. An operation whose name ends in "-total" before the "@"
/// already sums its group's other operations: where a group has one, only it is counted, else every operation
/// ("Total Op Info" is skipped). MB are 10^6 bytes and ms 10^6 ns: "Transit Size(MB)": 61.210624 → 61210624 bytes.
RankLinkTable readCommunicationMatrixJson(const std::filesystem::path& path);

/// Joins the table's operations to the HCCL operation slices of the timeline (same name, starts within 1 µs) and
/// adds the figures as args under the tools' names: "Wait Time(ms)", "Transit Time(ms)",
/// "Synchronization Time(ms)", "Idle Time(ms)" (doubles, ms), and for the main link "Link Type" (string),
/// "Link Transit Size(MB)", "Link Transit Time(ms)" (doubles). The communication analysis takes an operation's
/// wait from "Wait Time(ms)" and its bytes and link bandwidth from the link args (analysis/core/communication.h).
class CommunicationOpJoin
{
public:
    CommunicationOpJoin(model::TraceBuilder& b, const CommunicationOpTable& table);
    /// Appends the args of the row matching (name, start), at most once per row; false when none matches.
    bool append(std::string_view name, model::TimeNs start, std::vector<model::Arg>& args);
    [[nodiscard]] std::size_t matched() const { return m_matched; }
    [[nodiscard]] std::size_t rows() const { return m_table.rows.size(); }

private:
    const CommunicationOpTable& m_table;
    std::vector<bool> m_used;
    std::size_t m_matched = 0;
    model::StringId m_wait;
    model::StringId m_transit;
    model::StringId m_sync;
    model::StringId m_idle;
    model::StringId m_linkType;
    model::StringId m_linkSize;
    model::StringId m_linkTime;
    model::TraceBuilder& m_builder;
};

} // namespace timesink::parsers
