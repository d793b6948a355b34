// SPDX-License-Identifier: MIT
#pragma once

#include "model/trace.h"

#include <memory>

namespace timesink::model {

/// Raw access to the storage of a trace, for the snapshot writer and reader only (parsers/snapshot). A snapshot
/// stores the finalized columns and indexes as they are and reads them back without running finalize again, so it
/// needs what the public API deliberately hides. Everything else builds traces through TraceBuilder.
///
/// The reader fills a fresh Trace from makeTrace() and must leave it as finalize() would: every index in range,
/// columns sorted, indexes and summaries consistent (parsers/snapshot validates before handing the trace out).
/// Members are returned as they are stored; `T` is Trace/Track/… or its const version.
class SnapshotAccess
{
public:
    // NOLINTNEXTLINE(modernize-make-unique): Trace's constructor is private to its friends; make_unique is not one
    static std::unique_ptr<Trace> makeTrace() { return std::unique_ptr<Trace>(new Trace()); }

    // Trace
    template <typename T> static auto& strings(T& t) { return t.m_strings; }
    template <typename T> static auto& args(T& t) { return t.m_args; }
    template <typename T> static auto& tracks(T& t) { return t.m_tracks; }
    template <typename T> static auto& flows(T& t) { return t.m_flows; }
    template <typename T> static auto& flowsByTarget(T& t) { return t.m_flowsByTarget; }
    template <typename T> static auto& steps(T& t) { return t.m_steps; }
    template <typename T> static auto& metadata(T& t) { return t.m_metadata; }
    template <typename T> static auto& warnings(T& t) { return t.m_warnings; }
    template <typename T> static auto& categoryCounts(T& t) { return t.m_categoryCounts; }
    template <typename T> static auto& sliceCount(T& t) { return t.m_sliceCount; }
    template <typename T> static auto& start(T& t) { return t.m_start; }
    template <typename T> static auto& end(T& t) { return t.m_end; }

    // ArgStore
    template <typename A> static auto& argValueBytes(A& a) { return a.m_values; }
    template <typename A> static auto& argOffsets(A& a) { return a.m_offsets; }
    template <typename A> static auto& argSetSchemas(A& a) { return a.m_schemas; }
    template <typename A> static auto& argSchemaKeys(A& a) { return a.m_schemaKeys; }
    template <typename A> static auto& argSchemaOffsets(A& a) { return a.m_schemaOffsets; }

    // StringPool: the reader interns the strings in id order; this only sizes the tables for them.
    static void reserveStrings(StringPool& pool, std::size_t count)
    {
        pool.m_views.reserve(count);
        pool.reserveIndex(count);
    }

    // Track
    template <typename K> static auto& ts(K& k) { return k.m_ts; }
    template <typename K> static auto& dur(K& k) { return k.m_dur; }
    template <typename K> static auto& name(K& k) { return k.m_name; }
    template <typename K> static auto& rawCategory(K& k) { return k.m_rawCategory; }
    template <typename K> static auto& parent(K& k) { return k.m_parent; }
    template <typename K> static auto& sliceArgs(K& k) { return k.m_args; }
    template <typename K> static auto& depth(K& k) { return k.m_depth; }
    template <typename K> static auto& category(K& k) { return k.m_category; }
    template <typename K> static auto& flags(K& k) { return k.m_flags; }
    template <typename K> static auto& byDepth(K& k) { return k.m_byDepth; }
    template <typename K> static auto& summaries(K& k) { return k.m_summaries; }
    template <typename K> static auto& counterTs(K& k) { return k.m_counterTs; }
    template <typename K> static auto& counterValues(K& k) { return k.m_counterValues; }
    template <typename K> static auto& trackStart(K& k) { return k.m_start; }
    template <typename K> static auto& trackEnd(K& k) { return k.m_end; }
    template <typename K> static auto& busy(K& k) { return k.m_busy; }
};

} // namespace timesink::model
