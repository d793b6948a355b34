// SPDX-License-Identifier: MIT
#include "parsers/ascenddb/ascenddbreader.h"

#include "model/argnames.h"
#include "model/checkedmath.h"
#include "model/tracebuilder.h"
#include "parsers/ascendcommon/ascendtasktype.h"
#include "parsers/ascendcommon/ascendtracks.h"
#include "parsers/common/correlationjoin.h"
#include "parsers/common/sqlitedb.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <unordered_map>
#include <vector>

namespace timesink::parsers {

using model::Arg;
using model::ArgValue;
using model::SliceCategory;
using model::SliceInput;
using model::SliceRef;
using model::TimeNs;

bool isAscendDbName(const std::filesystem::path& path)
{
    const std::string name = path.filename().string();
    if (path.extension() != ".db")
        return false;
    return name.rfind("msprof_", 0) == 0 || name.rfind("ascend_pytorch_profiler", 0) == 0;
}

namespace {

// ENUM_API_TYPE ids for PYTORCH_API.type (the enum table is read when present; these are its documented values).
constexpr std::int64_t kApiTypeQueue = 50002;
constexpr std::int64_t kApiTypeTrace = 50003;
constexpr std::int64_t kApiTypeMstx = 50004;

enum ConnectionCat : std::uint8_t {
    kHostToDevice = 1,
    kAsyncNpu = 2,
    kAsyncTaskQueue = 4,
    kFwdBwd = 8,
};

struct NamedRef
{
    SliceRef ref;
    model::StringId name;
    TimeNs ts = 0;
    TimeNs end = 0;
};

class DbLoader
{
public:
    DbLoader(const std::filesystem::path& path, SqliteDb& db, model::TraceBuilder& b, AscendTracks& tracks,
             ProgressSink& progress, AscendDbSummary& summary)
        : m_path(path)
        , m_db(db)
        , m_b(b)
        , m_tracks(tracks)
        , m_progress(progress)
        , m_summary(summary)
    {
    }

    bool run();

private:
    /// Column expression: the first existing candidate as `alias.col`, else NULL (schema drift).
    std::string col(std::string_view table, std::string_view alias, std::initializer_list<std::string_view> names)
    {
        const std::string c = m_db.pickColumn(table, names);
        if (c.empty())
            return "NULL";
        return std::string(alias) + ".\"" + c + "\"";
    }
    model::StringId str(std::optional<std::int64_t> id)
    {
        if (!id)
            return {};
        auto it = m_strings.find(*id);
        if (it == m_strings.end())
            return {};
        return m_b.intern(it->second);
    }
    std::string_view strView(std::optional<std::int64_t> id) const
    {
        if (!id)
            return {};
        auto it = m_strings.find(*id);
        return it == m_strings.end() ? std::string_view {} : std::string_view(it->second);
    }
    void queryFailed(std::string_view table, const SqliteQuery& q)
    {
        m_b.warn(model::ImportWarningKind::DbQueryFailed,
                 m_path.string() + ": reading table " + std::string(table) + " failed: " + q.error()
                     + " (the data before the failure was kept)");
    }
    bool cancelled() const { return m_progress.cancelled(); }
    Arg arg(std::string_view key, ArgValue v) { return Arg {m_b.intern(key), v}; }
    Arg argStr(std::string_view key, std::string_view v) { return arg(key, ArgValue::fromString(m_b.intern(v))); }

    void loadEnum(std::string_view table, std::unordered_map<std::int64_t, std::string>& out)
    {
        if (!m_db.hasTable(table))
            return;
        SqliteQuery e(m_db, "SELECT id, name FROM \"" + std::string(table) + "\"");
        while (e.step()) {
            if (auto id = e.int64(0))
                out.emplace(*id, std::string(e.text(1)));
        }
    }
    void readMetadata();
    void readStrings();
    void readConnections();
    void readPytorchApi();
    void readCannApi();
    void readTasks();
    /// TASK_PMU_INFO's AI-core counters per globalTaskId, in kPmuNames' order (aic_total_time in µs, as
    /// kernel_details.csv's aicore_time(us)); empty without the table.
    std::unordered_map<std::int64_t, std::array<std::optional<double>, 6>> readTaskPmu();
    void readCommunicationOps();
    void readSteps();
    void readOverlap();
    void readCounters();
    void readMstx();
    void linkFlows();

    const std::filesystem::path& m_path;
    SqliteDb& m_db;
    model::TraceBuilder& m_b;
    AscendTracks& m_tracks;
    ProgressSink& m_progress;
    AscendDbSummary& m_summary;
    std::int32_t m_device = 0;
    std::unordered_map<std::int64_t, std::string> m_strings;
    std::unordered_map<std::int64_t, std::string> m_apiTypes;
    std::unordered_map<std::int64_t, std::string> m_transportTypes;
    std::unordered_map<std::int64_t, std::uint8_t> m_connCats;           // connectionId → ConnectionCat bits
    std::unordered_multimap<std::int64_t, std::int64_t> m_connectionIds; // CONNECTION_IDS.id → connectionId
    std::unordered_map<std::int64_t, NamedRef> m_pyLaunch;               // connectionId → framework op (async_npu)
    std::unordered_map<std::int64_t, std::vector<NamedRef>> m_pyQueue;   // connectionId → Enqueue/Dequeue
    std::unordered_map<std::int64_t, std::vector<NamedRef>> m_pyFwdBwd;  // connectionId → forward/backward ops
    std::unordered_map<std::int64_t, NamedRef> m_cannLaunch;             // connectionId → CANN API (HostToDevice)
    CorrelationJoin m_launches; // launchers ↔ tasks and communication ops by connectionId (see linkFlows)
    std::map<std::int64_t, NamedRef> m_stepMarkers; // step number → ProfilerStep slice
    bool m_hasCats = false;
};

void DbLoader::readMetadata()
{
    if (m_db.hasTable("META_DATA")) {
        SqliteQuery q(m_db, "SELECT name, value FROM META_DATA");
        while (q.step()) {
            if (q.text(0) == "SCHEMA_VERSION")
                m_summary.schemaVersion = std::string(q.text(1));
        }
    }
    if (m_db.hasTable("RANK_DEVICE_MAP")) {
        SqliteQuery q(m_db,
                      "SELECT " + col("RANK_DEVICE_MAP", "r", {"rankId", "rank_id"}) + ", "
                          + col("RANK_DEVICE_MAP", "r", {"deviceId", "device_id"}) + " FROM RANK_DEVICE_MAP r");
        if (q.step()) {
            if (auto rank = q.int64(0); rank && *rank >= 0 && *rank < (1 << 30))
                m_b.metadata().rank = static_cast<std::int32_t>(*rank);
            if (auto dev = q.int64(1); dev && *dev >= 0 && *dev < (1 << 30))
                m_device = static_cast<std::int32_t>(*dev);
        }
    }
    if (m_db.hasTable("NPU_INFO")) {
        SqliteQuery q(m_db,
                      "SELECT " + col("NPU_INFO", "n", {"id", "deviceId"}) + ", " + col("NPU_INFO", "n", {"name"})
                          + " FROM NPU_INFO n ORDER BY 1");
        while (q.step()) {
            model::Device d;
            d.kind = model::DeviceKind::Npu;
            d.index = static_cast<std::int32_t>(q.int64(0).value_or(0));
            d.name = std::string(q.text(1));
            bool known = false;
            for (const auto& existing : m_b.metadata().devices)
                known = known || (existing.kind == d.kind && existing.index == d.index);
            if (!known)
                m_b.metadata().devices.push_back(std::move(d));
        }
    }
    if (m_db.hasTable("SESSION_TIME_INFO")) {
        SqliteQuery q(m_db,
                      "SELECT " + col("SESSION_TIME_INFO", "s", {"startTimeNs", "start_time_ns"}) + ", "
                          + col("SESSION_TIME_INFO", "s", {"endTimeNs", "end_time_ns"}) + " FROM SESSION_TIME_INFO s");
        if (q.step()) {
            if (auto v = q.int64(0))
                m_b.metadata().properties.emplace_back("session_start_ns", std::to_string(*v));
            if (auto v = q.int64(1))
                m_b.metadata().properties.emplace_back("session_end_ns", std::to_string(*v));
        }
    }
    if (m_db.hasTable("HOST_INFO")) {
        SqliteQuery q(m_db, "SELECT " + col("HOST_INFO", "h", {"hostName", "host_name"}) + " FROM HOST_INFO h");
        if (q.step() && !q.text(0).empty())
            m_b.metadata().properties.emplace_back("host_name", std::string(q.text(0)));
    }
}

void DbLoader::readStrings()
{
    if (!m_db.hasTable("STRING_IDS")) {
        m_b.warn(model::ImportWarningKind::DbMissingTable,
                 m_path.string() + ": no STRING_IDS table; names are shown as numbers");
        return;
    }
    SqliteQuery q(m_db, "SELECT id, value FROM STRING_IDS");
    while (q.step()) {
        if (auto id = q.int64(0))
            m_strings.emplace(*id, std::string(q.text(1)));
    }
    if (!q.error().empty())
        queryFailed("STRING_IDS", q);
    loadEnum("ENUM_API_TYPE", m_apiTypes);
    loadEnum("ENUM_HCCL_TRANSPORT_TYPE", m_transportTypes);
}

void DbLoader::readConnections()
{
    if (m_db.hasTable("connectionCats")) {
        m_hasCats = true;
        SqliteQuery q(m_db, "SELECT connectionId, cat FROM connectionCats");
        while (q.step()) {
            const auto id = q.int64(0);
            if (!id)
                continue;
            const std::string_view cat = q.text(1);
            std::uint8_t bit = 0;
            if (cat == "HostToDevice")
                bit = kHostToDevice;
            else if (cat == "async_npu")
                bit = kAsyncNpu;
            else if (cat == "async_task_queue")
                bit = kAsyncTaskQueue;
            else if (cat == "fwdbwd")
                bit = kFwdBwd;
            m_connCats[*id] |= bit;
        }
    }
    if (m_db.hasTable("CONNECTION_IDS")) {
        SqliteQuery q(m_db, "SELECT id, connectionId FROM CONNECTION_IDS");
        while (q.step()) {
            const auto id = q.int64(0);
            const auto conn = q.int64(1);
            if (id && conn)
                m_connectionIds.emplace(*id, *conn);
        }
    }
}

void DbLoader::readPytorchApi()
{
    if (!m_db.hasTable("PYTORCH_API"))
        return;
    m_summary.torchNpu = true;
    const std::string sql = "SELECT " + col("PYTORCH_API", "p", {"startNs", "start_ns"}) + ", "
        + col("PYTORCH_API", "p", {"endNs", "end_ns"}) + ", " + col("PYTORCH_API", "p", {"globalTid", "global_tid"})
        + ", " + col("PYTORCH_API", "p", {"connectionId", "connection_id"}) + ", " + col("PYTORCH_API", "p", {"name"})
        + ", " + col("PYTORCH_API", "p", {"type"}) + ", "
        + col("PYTORCH_API", "p", {"sequenceNumber", "sequence_number"}) + ", "
        + col("PYTORCH_API", "p", {"inputShapes", "input_shapes"}) + " FROM PYTORCH_API p";
    SqliteQuery q(m_db, sql);
    const model::StringId catOp = m_b.intern("cpu_op");
    const model::StringId catPython = m_b.intern("python_function");
    const model::StringId catQueue = m_b.intern("queue");
    const model::StringId catMstx = m_b.intern("mstx");
    while (q.step()) {
        const auto start = q.int64(0);
        const auto end = q.int64(1);
        if (!start || !end || *end < *start) {
            m_b.warn(model::ImportWarningKind::BadTs,
                     m_path.string() + ": PYTORCH_API row with unusable startNs/endNs skipped");
            continue;
        }
        const std::int64_t gtid = q.int64(2).value_or(0);
        const std::int64_t type = q.int64(5).value_or(0);
        const std::string_view name = strView(q.int64(4));
        SliceInput s;
        s.ts = *start;
        s.dur = model::saturatingSub(*end, *start);
        s.name = m_b.intern(name);
        s.rawCategory = type == kApiTypeTrace ? catPython
            : type == kApiTypeQueue           ? catQueue
            : type == kApiTypeMstx            ? catMstx
                                              : catOp;
        s.category
            = type == kApiTypeMstx ? SliceCategory::Annotation : classifyAscendHostOp(name, m_b.str(s.rawCategory));
        std::vector<Arg> args;
        if (auto seq = q.int64(6); seq && *seq >= 0)
            args.push_back(arg("Sequence number", ArgValue::fromInt(*seq)));
        if (const std::string_view shapes = strView(q.int64(7)); !shapes.empty())
            args.push_back(argStr(model::argnames::kInputDims, shapes));
        s.args = m_b.addArgs(args);
        const model::TrackId track = m_tracks.hostThread("Python", gtid >> 32, gtid & 0xffffffff);
        const SliceRef ref = m_b.addSlice(track, s);
        if (!ref.isValid())
            continue; // outside the representable time range: counted by the builder
        ++m_summary.frameworkApis;
        if (s.category == SliceCategory::Step)
            m_stepMarkers.emplace(profilerStepNumber(name), NamedRef {ref, s.name, s.ts, s.ts + s.dur});
        if (q.isNull(3))
            continue;
        const std::int64_t connKey = *q.int64(3);
        auto [first, last] = m_connectionIds.equal_range(connKey);
        std::vector<std::int64_t> conns;
        for (auto it = first; it != last; ++it)
            conns.push_back(it->second);
        if (conns.empty() && !m_db.hasTable("CONNECTION_IDS"))
            conns.push_back(connKey); // older exports store the connection id itself
        for (std::int64_t conn : conns) {
            std::uint8_t cats = m_hasCats ? m_connCats[conn] : std::uint8_t(kAsyncNpu | kAsyncTaskQueue);
            const NamedRef named {ref, s.name, s.ts, s.ts + s.dur};
            if (cats & kAsyncNpu)
                m_pyLaunch.emplace(conn, named);
            if (type == kApiTypeQueue && (cats & kAsyncTaskQueue))
                m_pyQueue[conn].push_back(named);
            else if (cats & kFwdBwd)
                m_pyFwdBwd[conn].push_back(named);
        }
    }
    if (!q.error().empty())
        queryFailed("PYTORCH_API", q);
}

void DbLoader::readCannApi()
{
    if (!m_db.hasTable("CANN_API"))
        return;
    const std::string sql = "SELECT " + col("CANN_API", "a", {"startNs", "start_ns"}) + ", "
        + col("CANN_API", "a", {"endNs", "end_ns"}) + ", " + col("CANN_API", "a", {"type"}) + ", "
        + col("CANN_API", "a", {"globalTid", "global_tid"}) + ", "
        + col("CANN_API", "a", {"connectionId", "connection_id"}) + ", " + col("CANN_API", "a", {"name"})
        + " FROM CANN_API a";
    SqliteQuery q(m_db, sql);
    const model::StringId keyLevel = m_b.intern("level");
    while (q.step()) {
        const auto start = q.int64(0);
        const auto end = q.int64(1);
        if (!start || !end || *end < *start) {
            m_b.warn(model::ImportWarningKind::BadTs,
                     m_path.string() + ": CANN_API row with unusable startNs/endNs skipped");
            continue;
        }
        const std::int64_t gtid = q.int64(3).value_or(0);
        const std::string_view level = [&]() -> std::string_view {
            auto it = m_apiTypes.find(q.int64(2).value_or(-1));
            return it == m_apiTypes.end() ? std::string_view {} : std::string_view(it->second);
        }();
        const std::string_view apiName = strView(q.int64(5));
        // Named like the timeline does ("AscendCL@aclrtMemcpyAsync") so both exports read the same.
        std::string name;
        if (level == "acl")
            name = "AscendCL@";
        else if (level == "runtime")
            name = "Runtime@";
        else if (level == "node")
            name = "Node@";
        else if (level == "hccl")
            name = "Hccl@";
        else if (level == "model")
            name = "Model@";
        name += apiName;
        SliceInput s;
        s.ts = *start;
        s.dur = model::saturatingSub(*end, *start);
        s.name = m_b.intern(name);
        s.category = SliceCategory::RuntimeApi;
        s.rawCategory = m_b.intern(level);
        std::vector<Arg> args;
        if (!level.empty())
            args.push_back(Arg {keyLevel, ArgValue::fromString(m_b.intern(level))});
        if (auto conn = q.int64(4))
            args.push_back(arg("connection_id", ArgValue::fromInt(*conn)));
        s.args = m_b.addArgs(args);
        const SliceRef ref = m_b.addSlice(m_tracks.hostThread("CANN", gtid >> 32, gtid & 0xffffffff), s);
        if (!ref.isValid())
            continue; // outside the representable time range: counted by the builder
        ++m_summary.cannApis;
        if (auto conn = q.int64(4))
            m_cannLaunch.emplace(*conn, NamedRef {ref, m_b.intern(apiName), s.ts, s.ts + s.dur});
    }
    if (!q.error().empty())
        queryFailed("CANN_API", q);
}

/// The TASK_PMU_INFO counters kept, and the arg each becomes (model/argnames.h: kernel_details.csv's names).
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kPmuNames {{
    {"aic_total_time", model::argnames::kAicoreTime},
    {"aic_total_cycles", model::argnames::kAicTotalCycles},
    {"aic_mac_ratio", model::argnames::kAicMacRatio},
    {"aic_mte2_ratio", model::argnames::kAicMte2Ratio},
    {"aic_mac_fp16_ratio", model::argnames::kAicMacFp16Ratio},
    {"aic_mac_int8_ratio", model::argnames::kAicMacInt8Ratio},
}};

std::unordered_map<std::int64_t, std::array<std::optional<double>, 6>> DbLoader::readTaskPmu()
{
    std::unordered_map<std::int64_t, std::array<std::optional<double>, 6>> out;
    if (!m_db.hasTable("TASK_PMU_INFO"))
        return out;
    // The counter names are STRING_IDS ids: the few kept ones, looked up once.
    std::unordered_map<std::int64_t, std::size_t> slotOf;
    for (const auto& [id, text] : m_strings) {
        for (std::size_t i = 0; i < kPmuNames.size(); ++i) {
            if (text == kPmuNames[i].first)
                slotOf.emplace(id, i);
        }
    }
    if (slotOf.empty())
        return out;
    SqliteQuery q(m_db,
                  "SELECT " + col("TASK_PMU_INFO", "p", {"globalTaskId", "global_task_id"}) + ", "
                      + col("TASK_PMU_INFO", "p", {"name"}) + ", " + col("TASK_PMU_INFO", "p", {"value"})
                      + " FROM TASK_PMU_INFO p");
    while (q.step()) {
        const auto task = q.int64(0);
        const auto name = q.int64(1);
        const auto value = q.real(2);
        if (!task || !name || !value || !std::isfinite(*value) || *value < 0.0)
            continue;
        const auto slot = slotOf.find(*name);
        if (slot == slotOf.end())
            continue;
        // aic_total_time is in ns in the database, µs in kernel_details.csv.
        out[*task][slot->second] = slot->second == 0 ? *value / 1000.0 : *value;
    }
    if (!q.error().empty())
        queryFailed("TASK_PMU_INFO", q);
    return out;
}

void DbLoader::readTasks()
{
    if (!m_db.hasTable("TASK"))
        return;
    const bool compute = m_db.hasTable("COMPUTE_TASK_INFO");
    const bool comm = m_db.hasTable("COMMUNICATION_TASK_INFO");
    std::string sql = "SELECT " + col("TASK", "t", {"startNs", "start_ns"}) + ", "
        + col("TASK", "t", {"endNs", "end_ns"}) + ", " + col("TASK", "t", {"deviceId", "device_id"}) + ", "
        + col("TASK", "t", {"streamId", "stream_id"}) + ", " + col("TASK", "t", {"taskId", "task_id"}) + ", "
        + col("TASK", "t", {"connectionId", "connection_id"}) + ", " + col("TASK", "t", {"taskType", "task_type"})
        + ", " + col("TASK", "t", {"modelId", "model_id"});
    if (compute) {
        sql += ", " + col("COMPUTE_TASK_INFO", "c", {"name"}) + ", "
            + col("COMPUTE_TASK_INFO", "c", {"taskType", "task_type"}) + ", "
            + col("COMPUTE_TASK_INFO", "c", {"opType", "op_type"}) + ", "
            + col("COMPUTE_TASK_INFO", "c", {"blockDim", "block_dim", "blockNum"}) + ", "
            + col("COMPUTE_TASK_INFO", "c", {"inputShapes", "input_shapes"}) + ", "
            + col("COMPUTE_TASK_INFO", "c", {"globalTaskId", "global_task_id"});
    } else {
        sql += ", NULL, NULL, NULL, NULL, NULL, NULL";
    }
    if (comm) {
        sql += ", " + col("COMMUNICATION_TASK_INFO", "m", {"name"}) + ", "
            + col("COMMUNICATION_TASK_INFO", "m", {"taskType", "task_type"}) + ", "
            + col("COMMUNICATION_TASK_INFO", "m", {"planeId", "plane_id"}) + ", "
            + col("COMMUNICATION_TASK_INFO", "m", {"transportType", "transport_type"}) + ", "
            + col("COMMUNICATION_TASK_INFO", "m", {"size"}) + ", "
            + col("COMMUNICATION_TASK_INFO", "m", {"srcRank", "src_rank"}) + ", "
            + col("COMMUNICATION_TASK_INFO", "m", {"dstRank", "dst_rank"}) + ", "
            + col("COMMUNICATION_TASK_INFO", "m", {"globalTaskId", "global_task_id"});
    } else {
        sql += ", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL";
    }
    // Columns 22–26: what a task reads and writes, for the conversion, precision and efficiency analyses.
    if (compute) {
        sql += ", " + col("COMPUTE_TASK_INFO", "c", {"inputDataTypes", "input_data_types"}) + ", "
            + col("COMPUTE_TASK_INFO", "c", {"inputFormats", "input_formats"}) + ", "
            + col("COMPUTE_TASK_INFO", "c", {"outputDataTypes", "output_data_types"}) + ", "
            + col("COMPUTE_TASK_INFO", "c", {"outputFormats", "output_formats"}) + ", "
            + col("COMPUTE_TASK_INFO", "c", {"outputShapes", "output_shapes"});
    } else {
        sql += ", NULL, NULL, NULL, NULL, NULL";
    }
    sql += " FROM TASK t";
    // Without a task key on either side the joins match nothing (ON NULL = x is never true).
    const std::string taskKey = col("TASK", "t", {"globalTaskId", "global_task_id"});
    if (compute)
        sql += " LEFT JOIN COMPUTE_TASK_INFO c ON " + col("COMPUTE_TASK_INFO", "c", {"globalTaskId", "global_task_id"})
            + " = " + taskKey;
    if (comm)
        sql += " LEFT JOIN COMMUNICATION_TASK_INFO m ON "
            + col("COMMUNICATION_TASK_INFO", "m", {"globalTaskId", "global_task_id"}) + " = " + taskKey;

    SqliteQuery q(m_db, sql);
    if (!q.prepared()) {
        queryFailed("TASK", q);
        return;
    }
    // The DB keeps each collective's own task on the HCCL stream too: a TASK row (taskType AI_CORE, no compute
    // info) with the connection id of its COMMUNICATION_OP. It is the collective, not a kernel.
    std::unordered_map<std::int64_t, model::StringId> commOpByConnection;
    if (m_db.hasTable("COMMUNICATION_OP")) {
        SqliteQuery ops(m_db,
                        "SELECT " + col("COMMUNICATION_OP", "o", {"connectionId", "connection_id"}) + ", "
                            + col("COMMUNICATION_OP", "o", {"opName", "op_name"}) + " FROM COMMUNICATION_OP o");
        while (ops.step()) {
            if (const auto c = ops.int64(0))
                commOpByConnection.emplace(*c, str(ops.int64(1)));
        }
    }
    const model::StringId keyTaskType = m_b.intern("Task Type");
    const model::StringId keyOpType = m_b.intern("OP Type");
    const model::StringId keyCore = m_b.intern("Accelerator Core");
    const model::StringId keyTaskId = m_b.intern("Task Id");
    const model::StringId keyStream = m_b.intern("Physic Stream Id");
    const model::StringId keyConn = m_b.intern("connection_id");
    const model::StringId keyBlock = m_b.intern("Block Dim");
    const model::StringId keyShapes = m_b.intern("Input Shapes");
    const model::StringId keyOutShapes = m_b.intern(model::argnames::kOutputShapes);
    const std::array<model::StringId, 4> keyTypesFormats {m_b.intern(model::argnames::kInputDataTypes),
                                                          m_b.intern("Input Formats"), m_b.intern("Output Data Types"),
                                                          m_b.intern("Output Formats")};
    const auto pmu = readTaskPmu();
    std::array<model::StringId, kPmuNames.size()> keyPmu {};
    if (!pmu.empty()) {
        for (std::size_t i = 0; i < kPmuNames.size(); ++i)
            keyPmu[i] = m_b.intern(kPmuNames[i].second);
    }
    std::uint64_t rows = 0;
    while (q.step()) {
        if ((++rows & 0xffff) == 0 && cancelled())
            return;
        const auto start = q.int64(0);
        const auto end = q.int64(1);
        if (!start || !end || *end < *start) {
            m_b.warn(model::ImportWarningKind::BadTs,
                     m_path.string() + ": TASK row with unusable startNs/endNs skipped");
            continue;
        }
        const std::int32_t device = static_cast<std::int32_t>(q.int64(2).value_or(m_device));
        const std::int64_t stream = q.int64(3).value_or(-1);
        const std::string_view taskType = strView(q.int64(6));
        const std::string_view computeName = strView(q.int64(8));
        const std::string_view coreType = strView(q.int64(9));
        const std::string_view opType = strView(q.int64(10));
        const bool isCommTask = !q.isNull(21);
        const std::string_view commType = strView(q.int64(15));

        AscendTaskClass cls = classifyAscendTask(taskType, coreType, computeName.empty() ? taskType : computeName);
        SliceInput s;
        s.ts = *start;
        s.dur = model::saturatingSub(*end, *start);
        s.name = m_b.intern(!computeName.empty() ? computeName : taskType);
        s.rawCategory = m_b.intern(taskType);
        std::vector<Arg> args;
        args.push_back(Arg {keyTaskType, ArgValue::fromString(m_b.intern(taskType))});
        if (!coreType.empty())
            args.push_back(Arg {keyCore, ArgValue::fromString(m_b.intern(coreType))});
        if (!opType.empty())
            args.push_back(Arg {keyOpType, ArgValue::fromString(m_b.intern(opType))});
        args.push_back(Arg {keyStream, ArgValue::fromInt(stream)});
        if (auto id = q.int64(4))
            args.push_back(Arg {keyTaskId, ArgValue::fromInt(*id)});
        const auto conn = q.int64(5);
        if (conn)
            args.push_back(Arg {keyConn, ArgValue::fromInt(*conn)});
        if (conn && computeName.empty() && !isCommTask) {
            if (const auto op = commOpByConnection.find(*conn);
                op != commOpByConnection.end() && !op->second.isEmpty()) {
                cls.category = SliceCategory::Communication;
                s.name = op->second;
            }
        }
        if (auto bd = q.int64(11))
            args.push_back(Arg {keyBlock, ArgValue::fromInt(*bd)});
        if (const auto shapes = strView(q.int64(12)); !shapes.empty())
            args.push_back(Arg {keyShapes, ArgValue::fromString(m_b.intern(shapes))});
        for (int c = 0; c < 4; ++c) {
            if (const auto v = strView(q.int64(22 + c)); !v.empty())
                args.push_back(Arg {keyTypesFormats[static_cast<std::size_t>(c)], ArgValue::fromString(m_b.intern(v))});
        }
        if (const auto v = strView(q.int64(26)); !v.empty())
            args.push_back(Arg {keyOutShapes, ArgValue::fromString(m_b.intern(v))});
        if (const auto task = q.int64(13); task && !pmu.empty()) {
            if (const auto counters = pmu.find(*task); counters != pmu.end()) {
                for (std::size_t i = 0; i < kPmuNames.size(); ++i) {
                    if (counters->second[i])
                        args.push_back(Arg {keyPmu[i], ArgValue::fromDouble(*counters->second[i])});
                }
            }
        }

        if (cls.category == SliceCategory::Memcpy && cls.hostDeviceCopy && conn) {
            // The DB does not keep the copy engine; the framework op or API that launched the copy may say.
            model::MemcpyDirection dir = model::MemcpyDirection::None;
            if (auto it = m_pyLaunch.find(*conn); it != m_pyLaunch.end())
                dir = copyDirectionFromLauncher(m_b.str(it->second.name));
            bool synchronous = false;
            if (auto it = m_cannLaunch.find(*conn); it != m_cannLaunch.end()) {
                const std::string_view api = m_b.str(it->second.name);
                if (dir == model::MemcpyDirection::None)
                    dir = copyDirectionFromLauncher(api);
                synchronous = api == "aclrtMemcpy";
            }
            s.setMemcpy(dir, model::HostMemoryKind::Unknown);
            if (synchronous)
                s.flags |= model::SliceFlags::kSynchronous;
        } else if (cls.category == SliceCategory::Memcpy) {
            s.setMemcpy(cls.direction, model::HostMemoryKind::Unknown);
        }
        s.category = cls.category;
        s.args = m_b.addArgs(args);
        const SliceRef ref = m_b.addSlice(m_tracks.deviceStream(device, stream), s);
        if (!ref.isValid())
            continue; // outside the representable time range: counted by the builder
        ++m_summary.tasks;
        if (conn)
            m_launches.addActivity(*conn, ref);

        if (isCommTask) {
            // HCCL sub-task: also on its communication plane, as the timeline's HCCL process shows it.
            SliceInput c;
            c.ts = s.ts;
            c.dur = s.dur;
            c.name = m_b.intern(commType.empty() ? taskType : commType);
            c.category = SliceCategory::Communication;
            c.rawCategory = m_b.intern("HCCL");
            std::vector<Arg> cargs;
            if (const auto op = strView(q.int64(14)); !op.empty())
                cargs.push_back(argStr("op_name", op));
            if (auto transport = q.int64(17)) {
                auto it = m_transportTypes.find(*transport);
                if (it != m_transportTypes.end())
                    cargs.push_back(argStr("transport type", it->second));
            }
            if (auto size = q.int64(18))
                cargs.push_back(arg("size(Byte)", ArgValue::fromInt(*size)));
            if (auto src = q.int64(19))
                cargs.push_back(arg("src rank", ArgValue::fromInt(*src)));
            if (auto dst = q.int64(20))
                cargs.push_back(arg("dst rank", ArgValue::fromInt(*dst)));
            c.args = m_b.addArgs(cargs);
            m_b.addSlice(m_tracks.communication(device, "Plane " + std::to_string(q.int64(16).value_or(0))), c);
        }
    }
    if (!q.error().empty())
        queryFailed("TASK", q);
}

void DbLoader::readCommunicationOps()
{
    if (!m_db.hasTable("COMMUNICATION_OP"))
        return;
    const std::string sql = "SELECT " + col("COMMUNICATION_OP", "o", {"opName", "op_name"}) + ", "
        + col("COMMUNICATION_OP", "o", {"startNs", "start_ns"}) + ", "
        + col("COMMUNICATION_OP", "o", {"endNs", "end_ns"}) + ", "
        + col("COMMUNICATION_OP", "o", {"connectionId", "connection_id"}) + ", "
        + col("COMMUNICATION_OP", "o", {"groupName", "group_name"}) + ", "
        + col("COMMUNICATION_OP", "o", {"opType", "op_type"}) + ", "
        + col("COMMUNICATION_OP", "o", {"algType", "alg_type"}) + ", " + col("COMMUNICATION_OP", "o", {"count"})
        + " FROM COMMUNICATION_OP o";
    SqliteQuery q(m_db, sql);
    while (q.step()) {
        const auto start = q.int64(1);
        const auto end = q.int64(2);
        if (!start || !end || *end < *start) {
            m_b.warn(model::ImportWarningKind::BadTs,
                     m_path.string() + ": COMMUNICATION_OP row with unusable startNs/endNs skipped");
            continue;
        }
        SliceInput s;
        s.ts = *start;
        s.dur = model::saturatingSub(*end, *start);
        s.name = str(q.int64(0));
        s.category = SliceCategory::Communication;
        s.rawCategory = m_b.intern("HCCL");
        std::vector<Arg> args;
        if (const auto group = strView(q.int64(4)); !group.empty())
            args.push_back(argStr("group", group));
        if (const auto op = strView(q.int64(5)); !op.empty())
            args.push_back(argStr("op_type", op));
        if (const auto alg = strView(q.int64(6)); !alg.empty())
            args.push_back(argStr("alg_type", alg));
        if (auto count = q.int64(7))
            args.push_back(arg("count", ArgValue::fromInt(*count)));
        if (auto conn = q.int64(3))
            args.push_back(arg("connection_id", ArgValue::fromInt(*conn)));
        s.args = m_b.addArgs(args);
        const SliceRef ref = m_b.addSlice(m_tracks.communication(m_device, "Group Communication"), s);
        if (!ref.isValid())
            continue; // outside the representable time range: counted by the builder
        ++m_summary.communicationOps;
        if (auto conn = q.int64(3))
            m_launches.addActivity(*conn, ref);
    }
    if (!q.error().empty())
        queryFailed("COMMUNICATION_OP", q);
}

void DbLoader::readSteps()
{
    if (m_db.hasTable("STEP_TIME")) {
        SqliteQuery q(m_db,
                      "SELECT " + col("STEP_TIME", "s", {"id", "stepId", "step_id"}) + ", "
                          + col("STEP_TIME", "s", {"startNs", "start_ns"}) + ", "
                          + col("STEP_TIME", "s", {"endNs", "end_ns"}) + " FROM STEP_TIME s ORDER BY 2");
        while (q.step()) {
            const auto id = q.int64(0);
            const auto start = q.int64(1);
            const auto end = q.int64(2);
            if (!id || !start || !end || *end < *start) {
                m_b.warn(model::ImportWarningKind::BadTs,
                         m_path.string() + ": STEP_TIME row with unusable id/startNs/endNs skipped");
                continue;
            }
            SliceRef marker;
            if (auto it = m_stepMarkers.find(*id); it != m_stepMarkers.end())
                marker = it->second.ref;
            m_b.addStep(*id, m_b.intern("ProfilerStep#" + std::to_string(*id)), *start, *end, marker);
            ++m_summary.steps;
        }
        if (!q.error().empty())
            queryFailed("STEP_TIME", q);
        if (m_summary.steps > 0)
            return;
    }
    // No STEP_TIME: the ProfilerStep#N framework slices define the steps.
    for (const auto& [number, marker] : m_stepMarkers) {
        m_b.addStep(number, marker.name, marker.ts, marker.end, marker.ref);
        ++m_summary.steps;
    }
}

void DbLoader::readOverlap()
{
    if (!m_db.hasTable("OVERLAP_ANALYSIS"))
        return;
    // Type codes: matched against the text export of the same run, whose Overlap Analysis lanes have the same
    // counts (0 Computing 187, 1 Communication 4, 2 Communication(Not Overlapped) 101, 3 Free 90).
    static constexpr std::string_view kLanes[]
        = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
    SqliteQuery q(m_db,
                  "SELECT " + col("OVERLAP_ANALYSIS", "o", {"deviceId", "device_id"}) + ", "
                      + col("OVERLAP_ANALYSIS", "o", {"startNs", "start_ns"}) + ", "
                      + col("OVERLAP_ANALYSIS", "o", {"endNs", "end_ns"}) + ", "
                      + col("OVERLAP_ANALYSIS", "o", {"type"}) + " FROM OVERLAP_ANALYSIS o");
    while (q.step()) {
        const auto start = q.int64(1);
        const auto end = q.int64(2);
        const std::int64_t type = q.int64(3).value_or(-1);
        if (!start || !end || *end < *start)
            continue;
        const std::string lane = type >= 0 && type < 4 ? std::string(kLanes[type]) : "Type " + std::to_string(type);
        SliceInput s;
        s.ts = *start;
        s.dur = model::saturatingSub(*end, *start);
        s.name = m_b.intern(lane);
        s.category = SliceCategory::Other;
        s.rawCategory = m_b.intern("overlap_analysis");
        m_b.addSlice(m_tracks.overlap(static_cast<std::int32_t>(q.int64(0).value_or(m_device)), lane), s);
    }
}

void DbLoader::readCounters()
{
    if (m_db.hasTable("AICORE_FREQ")) {
        SqliteQuery q(m_db,
                      "SELECT " + col("AICORE_FREQ", "f", {"deviceId", "device_id"}) + ", "
                          + col("AICORE_FREQ", "f", {"timestampNs", "timestamp_ns"}) + ", "
                          + col("AICORE_FREQ", "f", {"freq"}) + " FROM AICORE_FREQ f ORDER BY 2");
        std::map<std::int32_t, std::pair<double, double>> range; // device → lowest and highest sample
        std::map<std::int32_t, std::uint64_t> samples;
        while (q.step()) {
            const auto ts = q.int64(1);
            const auto v = q.real(2);
            const auto dev = static_cast<std::int32_t>(q.int64(0).value_or(m_device));
            if (ts && v)
                m_b.addCounterSample(m_tracks.counter("AI Core Freq", "MHz", dev), *ts, *v);
            if (v && std::isfinite(*v) && *v > 0.0) {
                auto [it, fresh] = range.try_emplace(dev, *v, *v);
                it->second = {std::min(it->second.first, *v), std::max(it->second.second, *v)};
                ++samples[dev];
            }
        }
        // The device's clock for the efficiency analysis: the highest sample, the nominal clock that DVFS lowers
        // (a peak at the highest clock never overstates a fraction of it).
        for (model::Device& d : m_b.metadata().devices) {
            const auto r = range.find(d.index);
            if (d.kind != model::DeviceKind::Npu || r == range.end() || d.aiCoreClockMHz > 0.0)
                continue;
            d.aiCoreClockMHz = r->second.second;
            d.computeSource = "AI-core clock from AICORE_FREQ (" + std::to_string(samples[d.index]) + " samples"
                + (r->second.first < r->second.second ? ", the highest" : ", all equal") + ")";
        }
    }
    if (m_db.hasTable("HBM")) {
        SqliteQuery q(m_db,
                      "SELECT " + col("HBM", "h", {"deviceId", "device_id"}) + ", "
                          + col("HBM", "h", {"timestampNs", "timestamp_ns"}) + ", " + col("HBM", "h", {"bandwidth"})
                          + ", " + col("HBM", "h", {"hbmId", "hbm_id"}) + ", " + col("HBM", "h", {"type"})
                          + " FROM HBM h ORDER BY 2");
        while (q.step()) {
            const auto ts = q.int64(1);
            const auto v = q.real(2);
            if (!ts || !v)
                continue;
            std::string series = "HBM " + std::to_string(q.int64(3).value_or(0));
            if (const auto t = strView(q.int64(4)); !t.empty())
                series += "/" + std::string(t);
            series += " (MB/s)";
            m_b.addCounterSample(
                m_tracks.counter("HBM", series, static_cast<std::int32_t>(q.int64(0).value_or(m_device))), *ts, *v);
        }
    }
    if (m_db.hasTable("NPU_MEM")) {
        SqliteQuery q(m_db,
                      "SELECT " + col("NPU_MEM", "n", {"deviceId", "device_id"}) + ", "
                          + col("NPU_MEM", "n", {"timestampNs", "timestamp_ns"}) + ", " + col("NPU_MEM", "n", {"hbm"})
                          + ", " + col("NPU_MEM", "n", {"ddr"}) + ", " + col("NPU_MEM", "n", {"type"})
                          + " FROM NPU_MEM n ORDER BY 2");
        while (q.step()) {
            const auto ts = q.int64(1);
            if (!ts)
                continue;
            const auto dev = static_cast<std::int32_t>(q.int64(0).value_or(m_device));
            std::string prefix(strView(q.int64(4)));
            if (prefix.empty())
                prefix = "NPU";
            if (auto hbm = q.real(2))
                m_b.addCounterSample(m_tracks.counter("NPU MEM", prefix + "/HBM (B)", dev), *ts, *hbm);
            if (auto ddr = q.real(3))
                m_b.addCounterSample(m_tracks.counter("NPU MEM", prefix + "/DDR (B)", dev), *ts, *ddr);
        }
    }
}

void DbLoader::readMstx()
{
    if (!m_db.hasTable("MSTX_EVENTS"))
        return;
    SqliteQuery q(m_db,
                  "SELECT " + col("MSTX_EVENTS", "e", {"startNs", "start_ns"}) + ", "
                      + col("MSTX_EVENTS", "e", {"endNs", "end_ns"}) + ", " + col("MSTX_EVENTS", "e", {"message"})
                      + ", " + col("MSTX_EVENTS", "e", {"globalTid", "global_tid"}) + " FROM MSTX_EVENTS e");
    while (q.step()) {
        const auto start = q.int64(0);
        const auto end = q.int64(1);
        if (!start || !end || *end < *start)
            continue;
        const std::int64_t gtid = q.int64(3).value_or(0);
        SliceInput s;
        s.ts = *start;
        s.dur = model::saturatingSub(*end, *start);
        s.name = str(q.int64(2));
        s.category = SliceCategory::Annotation;
        s.rawCategory = m_b.intern("mstx");
        m_b.addSlice(m_tracks.hostThread("MSTX", gtid >> 32, gtid & 0xffffffff), s);
    }
}

void DbLoader::linkFlows()
{
    // A connection's tasks were launched by its CANN API (when the connection is HostToDevice) and by its
    // framework op (async_npu): each links to both.
    for (const auto& [conn, api] : m_cannLaunch) {
        const auto cats = m_connCats.find(conn);
        if (!m_hasCats || (cats != m_connCats.end() && (cats->second & kHostToDevice)))
            m_launches.addLaunch(conn, api.ref);
    }
    for (const auto& [conn, op] : m_pyLaunch)
        m_launches.addLaunch(conn, op.ref);
    m_launches.join(
        [this](SliceRef launch, SliceRef task) {
            m_b.addFlow(launch, task, model::FlowKind::Launch);
            ++m_summary.flows;
        },
        CorrelationJoin::Launches::Every);
    m_launches.clear();
    auto linkPairs = [&](std::unordered_map<std::int64_t, std::vector<NamedRef>>& groups, model::FlowKind kind) {
        for (auto& [conn, refs] : groups) {
            (void)conn;
            if (refs.size() < 2)
                continue;
            std::sort(refs.begin(), refs.end(), [](const NamedRef& a, const NamedRef& b) { return a.ts < b.ts; });
            for (std::size_t i = 1; i < refs.size(); ++i) {
                m_b.addFlow(refs[0].ref, refs[i].ref, kind);
                ++m_summary.flows;
            }
        }
    };
    linkPairs(m_pyQueue, model::FlowKind::Other);
    linkPairs(m_pyFwdBwd, model::FlowKind::ForwardBackward);
}

bool DbLoader::run()
{
    const bool hasTimeline = m_db.hasTable("TASK") || m_db.hasTable("CANN_API") || m_db.hasTable("PYTORCH_API");
    if (!hasTimeline) {
        m_summary.status = model::Status(
            model::StatusKind::NotRecognised,
            m_path.string() + ": an SQLite database without msprof tables (expected TASK, CANN_API or PYTORCH_API)");
        return false;
    }
    struct Phase
    {
        const char* name;
        void (DbLoader::*fn)();
    };
    static constexpr Phase kPhases[] = {
        {"metadata", &DbLoader::readMetadata},
        {"strings", &DbLoader::readStrings},
        {"connections", &DbLoader::readConnections},
        {"framework ops", &DbLoader::readPytorchApi},
        {"CANN APIs", &DbLoader::readCannApi},
        {"device tasks", &DbLoader::readTasks},
        {"communication", &DbLoader::readCommunicationOps},
        {"steps", &DbLoader::readSteps},
        {"overlap", &DbLoader::readOverlap},
        {"counters", &DbLoader::readCounters},
        {"mstx", &DbLoader::readMstx},
        {"flows", &DbLoader::linkFlows},
    };
    std::uint64_t done = 0;
    for (const Phase& p : kPhases) {
        if (cancelled()) {
            m_summary.status
                = model::Status(model::StatusKind::Cancelled, "import of " + m_path.string() + " cancelled");
            return false;
        }
        m_progress.report(done++, std::size(kPhases), p.name);
        (this->*p.fn)();
    }
    if (!m_db.hasTable("TASK"))
        m_b.warn(model::ImportWarningKind::DbMissingTable,
                 m_path.string() + ": no TASK table; the trace has no device tasks");
    return true;
}

} // namespace

AscendDbSummary readAscendDb(const std::filesystem::path& path, model::TraceBuilder& builder, AscendTracks& tracks,
                             ProgressSink& progress)
{
    AscendDbSummary summary;
    std::string error;
    auto db = SqliteDb::open(path, error);
    if (!db) {
        summary.status = model::Status(model::StatusKind::NotRecognised, error);
        return summary;
    }
    // immutable=1 reads the main file only: changes still sitting in a -wal file (a profiler that did not close
    // its database) are not seen. Say so rather than silently showing less.
    std::error_code ec;
    const std::filesystem::path wal = path.string() + "-wal";
    if (std::filesystem::is_regular_file(wal, ec) && std::filesystem::file_size(wal, ec) > 0 && !ec) {
        builder.warn(model::ImportWarningKind::DbWalIgnored,
                     wal.string()
                         + " holds changes not yet written into the database; they are not read (the database is "
                           "opened read-only and immutable so it is never modified)");
    }
    DbLoader loader(path, *db, builder, tracks, progress, summary);
    loader.run();
    return summary;
}

} // namespace timesink::parsers
