// SPDX-License-Identifier: MIT
#pragma once

#include "model/podbuffer.h"
#include "model/types.h"
#include "model/varint.h"
#include "parsers/common/decimaltime.h"

#include <algorithm>
#include <compare>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace timesink::parsers {

/// A Chrome flow event's id within its category. Writers use decimal strings that can exceed 64 bits
/// (torch_npu's HostToDevice ids have 20 digits), so a numeric id of up to 38 digits is kept exactly as a
/// 128-bit value (hi, lo) plus its digit count, which keeps "007" and "7" distinct. Any other id text (longer,
/// signed, not a number) is interned by the caller: its number in `lo` and `digits` = kText. Comparing integers
/// instead of strings keeps pairing off the profile.
struct FlowId
{
    static constexpr std::uint8_t kText = 0xff;
    std::uint64_t hi = 0;
    std::uint64_t lo = 0;
    std::uint8_t digits = 0;
    auto operator<=>(const FlowId&) const = default;
    bool operator==(const FlowId&) const = default;

    [[nodiscard]] bool isText() const { return digits == kText; }

    /// A numeric id as a signed 64-bit value when it fits, as std::from_chars reads the digits ("007" → 7);
    /// nullopt for larger ids and for text ids (whose text the caller holds).
    [[nodiscard]] std::optional<std::int64_t> numericValue() const
    {
        if (isText() || hi != 0 || lo > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return std::nullopt;
        return static_cast<std::int64_t>(lo);
    }

    /// Parses `text`; `intern(std::string_view) → std::uint32_t` numbers the ids that are not 1-38 digits.
    template <typename Intern> static FlowId parse(std::string_view text, Intern&& intern)
    {
        FlowId id;
        // 38 decimal digits always fit in 128 bits; eight at a time (torch_npu's ids have 19-20 digits).
        __extension__ using U128 = unsigned __int128;
        U128 v = 0;
        bool numeric = !text.empty() && text.size() <= 38;
        std::size_t i = 0;
        for (std::uint64_t eight = 0; numeric && i + 8 <= text.size(); i += 8) {
            numeric = eightDigits(text.data() + i, eight);
            v = v * 100000000U + eight;
        }
        for (; numeric && i < text.size(); ++i) {
            numeric = text[i] >= '0' && text[i] <= '9';
            v = v * 10U + static_cast<unsigned>(text[i] - '0');
        }
        if (!numeric) {
            id.lo = intern(text);
            id.digits = kText;
            return id;
        }
        id.hi = static_cast<std::uint64_t>(v >> 64);
        id.lo = static_cast<std::uint64_t>(v);
        id.digits = static_cast<std::uint8_t>(text.size());
        return id;
    }
};

/// Numbers the text ids of a sink that has no string pool of its own to put them in (Kineto's ids are numbers
/// but for the odd hand-written trace), and gives their text back. Usable as FlowId::parse's `intern`.
class FlowTextIds
{
public:
    std::uint32_t operator()(std::string_view text)
    {
        auto [it, inserted] = m_ids.try_emplace(std::string(text), static_cast<std::uint32_t>(m_texts.size()));
        if (inserted)
            m_texts.push_back(&it->first); // map nodes do not move
        return it->second;
    }
    [[nodiscard]] std::string_view text(std::uint32_t id) const { return *m_texts[id]; }

private:
    std::unordered_map<std::string, std::uint32_t> m_ids;
    std::vector<const std::string*> m_texts;
};

/// One `s`, `f` (or `t`) event as kept: 32 bytes, its id's fields laid out flat (a 1 GB trace holds millions).
/// `endpoint` is the sink's dense number for the event's thread.
struct FlowRecord
{
    std::uint64_t hi = 0;
    std::uint64_t lo = 0;
    model::TimeNs ts = 0;
    std::uint32_t endpoint = 0;
    std::uint8_t digits = 0;
    bool bindEnclosing = false;
    [[nodiscard]] FlowId id() const { return FlowId {hi, lo, digits}; }
};
static_assert(sizeof(FlowRecord) <= 32, "a 1 GB trace holds millions of flow events: keep them small");

/// The flow events of one list (a category's starts, or its ends) in the order added. While the ids arrive in
/// order (the writers number flows in file order) the records are packed as differences from the one before,
/// ~6-8 bytes a record instead of 32: a 1 GB torch_npu trace keeps 3.5 M of them, and each megabyte of fresh
/// memory costs its page faults and zeroing (111 MB of records became ~25 MB). A list whose ids went back is
/// unpacked and sorted by sortById(), and then walked as plain records.
///
///   FlowRecordList l;
///   l.push(r1); l.push(r2);              // r1.id() <= r2.id(): stays packed
///   auto c = l.cursor();
///   for (FlowRecord r; c.next(r);) ...   // r1, r2
///
/// A packed record: a tag byte (bit 0 bindEnclosing; bit 1 the id follows in full, as varints hi and lo and a
/// digits byte, when its hi or digits differ from the previous record's; otherwise bits 2-7 hold the difference
/// of lo, 0-62, or 63 for a varint that follows), then the difference of ts as a zigzag varint, then the endpoint
/// as a varint. Differences wrap around in 64 bits, so any sequence decodes exactly; only the size depends on
/// the order.
class FlowRecordList
{
public:
    void push(const FlowRecord& r)
    {
        if (m_count > 0 && r.id() < m_last.id())
            m_sorted = false;
        if (!m_plain.empty()) {
            m_plain.push_back(r);
        } else {
            // Written in place (extend by the most a record takes, keep what it took): a copy of a variable
            // length is a call to memcpy per record.
            const std::size_t before = m_packed.size();
            std::uint8_t* const bytes = m_packed.extend(kMaxPackedBytes);
            std::uint8_t* out = bytes + 1;
            std::uint8_t tag = r.bindEnclosing ? 1 : 0;
            if (r.hi != m_last.hi || r.digits != m_last.digits) {
                tag |= 2;
                out = model::varint::put(out, r.hi);
                out = model::varint::put(out, r.lo);
                *out++ = r.digits;
            } else if (const std::uint64_t delta = r.lo - m_last.lo; delta < 63) {
                tag |= static_cast<std::uint8_t>(delta << 2);
            } else {
                tag |= 63U << 2;
                out = model::varint::put(out, delta);
            }
            out = model::varint::put(out, model::varint::zigzag(r.ts, m_last.ts));
            out = model::varint::put(out, r.endpoint);
            bytes[0] = tag;
            m_packed.truncate(before + static_cast<std::size_t>(out - bytes));
        }
        m_last = r;
        ++m_count;
    }

    [[nodiscard]] std::size_t size() const { return m_count; }
    [[nodiscard]] bool empty() const { return m_count == 0; }
    /// Whether each id added was at least the one before.
    [[nodiscard]] bool sorted() const { return m_sorted; }
    /// The record added last; only when not empty().
    [[nodiscard]] const FlowRecord& last() const { return m_last; }
    /// Bytes held, for the tests of the packing.
    [[nodiscard]] std::size_t bytes() const { return m_packed.size() + m_plain.size() * sizeof(FlowRecord); }

    /// Orders the records by id, stably (file order within an id), unpacking them when they are not in order.
    void sortById()
    {
        if (m_sorted)
            return;
        if (m_plain.empty()) {
            model::PodBuffer<FlowRecord> plain;
            plain.reserve(m_count);
            Cursor c = cursor();
            for (FlowRecord r; c.next(r);)
                plain.push_back(r);
            m_packed = model::PodBuffer<std::uint8_t>();
            m_plain = std::move(plain);
        }
        std::stable_sort(m_plain.begin(), m_plain.end(),
                         [](const FlowRecord& a, const FlowRecord& b) { return a.id() < b.id(); });
        m_sorted = true;
        m_last = m_plain.back(); // last() and the order check of a later push() follow the list's new order
    }

    /// Reads the records in order. The list must not change while a cursor reads it.
    class Cursor
    {
    public:
        bool next(FlowRecord& out)
        {
            if (m_plain) {
                if (m_plain == m_plainEnd)
                    return false;
                out = *m_plain++;
                return true;
            }
            if (m_p == m_end)
                return false;
            const std::uint8_t tag = *m_p++;
            FlowRecord& r = m_prev;
            r.bindEnclosing = (tag & 1) != 0;
            if (tag & 2) {
                r.hi = model::varint::get(m_p);
                r.lo = model::varint::get(m_p);
                r.digits = *m_p++;
            } else if ((tag >> 2) < 63) {
                r.lo += tag >> 2;
            } else {
                r.lo += model::varint::get(m_p);
            }
            r.ts = model::varint::unzigzag(r.ts, model::varint::get(m_p));
            r.endpoint = static_cast<std::uint32_t>(model::varint::get(m_p));
            out = r;
            return true;
        }

    private:
        friend class FlowRecordList;
        const std::uint8_t* m_p = nullptr;
        const std::uint8_t* m_end = nullptr;
        const FlowRecord* m_plain = nullptr;
        const FlowRecord* m_plainEnd = nullptr;
        FlowRecord m_prev;
    };
    [[nodiscard]] Cursor cursor() const
    {
        Cursor c;
        if (!m_plain.empty()) {
            c.m_plain = m_plain.data();
            c.m_plainEnd = m_plain.data() + m_plain.size();
        } else {
            c.m_p = m_packed.data();
            c.m_end = m_packed.data() + m_packed.size();
        }
        return c;
    }

private:
    // A tag, hi, lo, digits, ts and the endpoint.
    static constexpr std::size_t kMaxPackedBytes = 2 + 4 * model::varint::kMaxBytes;
    model::PodBuffer<std::uint8_t> m_packed;
    model::PodBuffer<FlowRecord> m_plain; // once sortById() had to sort
    FlowRecord m_last;                    // the list's last record (all zero before the first): the packing's base
    std::size_t m_count = 0;
    bool m_sorted = true;
};

/// Where the Chrome dialects differ in pairing flow events.
struct FlowDialect
{
    /// Which of several `s` events with one id starts the flow (Kineto: the first, and it warns about the
    /// others; torch_npu/msprof: the last).
    enum class Start : std::uint8_t { First, Last };
    Start start = Start::First;
    /// Whether a `t` (flow step) is one more end of its flow (torch_npu/msprof) or ignored (Kineto).
    bool stepIsEnd = false;
};

/// Everything kept of one flow id: its category, the chosen start (nullptr when there is none) and all its ends
/// in file order (none when there are none). One start with several ends is a CUDA-graph replay or a launch
/// feeding several device tasks; each sink decides what a group without start or without ends means.
struct FlowGroup
{
    std::uint32_t category = 0; // as category() numbered it
    std::uint32_t categoryKey = 0;
    std::string_view categoryText;
    FlowId id;
    const FlowRecord* start = nullptr;
    std::span<const FlowRecord> ends;
};

/// Pairs Chrome flow events (`ph` s/f/t) by category and id, for every dialect's sink (Kineto, the Ascend
/// timeline). The sink hands over each kept event as it streams (add()), calls sort() once after the last one,
/// then walks the flow ids with forEachGroup() as many times as it needs. The events sit in per-category
/// lists of starts and ends (FlowRecordList: packed while in order, millions of events without copies). The
/// writers number flows in file order, so each list is usually sorted already and pairing is a linear merge;
/// otherwise a stable sort first, so file order is kept among events of one id.
///
/// Example (Kineto's dialect): s 7 @10 on thread 0, s 7 @20 on thread 1, f 7 @30 on thread 2, t 7 @25
///   → one group: start @10 (thread 0), ends {@30 (thread 2)}, and duplicateStarts() == 1.
class FlowPairing
{
public:
    explicit FlowPairing(FlowDialect dialect = {})
        : m_dialect(dialect)
    {
    }

    /// Whether an event of phase `ph` takes part in pairing (s and f; t when the dialect makes it an end).
    [[nodiscard]] bool keeps(char ph) const { return ph == 's' || ph == 'f' || (ph == 't' && m_dialect.stepIsEnd); }

    /// The number of category `cat` (0, 1, … in order of first sight). `keyOf(std::string_view) → std::uint32_t`
    /// is asked once per new category for its place in the walk (categories go by ascending key, ties by number).
    template <typename KeyOf> std::uint32_t category(std::string_view cat, KeyOf&& keyOf)
    {
        // A handful of categories (ac2g, fwdbwd, async_npu, HostToDevice…): a scan beats hashing.
        for (std::uint32_t i = 0; i < m_buckets.size(); ++i) {
            if (m_buckets[i].text == cat)
                return i;
        }
        Bucket& b = m_buckets.emplace_back();
        b.text = std::string(cat);
        b.key = keyOf(std::string_view(b.text));
        return static_cast<std::uint32_t>(m_buckets.size() - 1);
    }
    std::uint32_t category(std::string_view cat)
    {
        return category(cat, [](std::string_view) { return std::uint32_t(0); });
    }
    [[nodiscard]] std::size_t categoryCount() const { return m_buckets.size(); }
    [[nodiscard]] std::string_view categoryText(std::uint32_t category) const { return m_buckets[category].text; }

    /// Keeps one event of phase `ph` (one that keeps() accepts): `s` is a start, anything else an end.
    void add(std::uint32_t category, char ph, FlowId id, model::TimeNs ts, std::uint32_t endpoint, bool bindEnclosing)
    {
        Bucket& b = m_buckets[category];
        const bool start = ph == 's';
        FlowRecordList& list = start ? b.starts : b.ends;
        // Writers number flows in file order: a sorted list's repeated start ids are known here from the previous
        // record, so sort() makes no pass over sorted lists.
        if (start && !list.empty() && list.last().id() == id)
            ++b.adjacentDuplicateStarts;
        list.push(FlowRecord {id.hi, id.lo, ts, endpoint, id.digits, bindEnclosing});
    }

    [[nodiscard]] bool empty() const
    {
        return std::all_of(m_buckets.begin(), m_buckets.end(),
                           [](const Bucket& b) { return b.starts.empty() && b.ends.empty(); });
    }

    /// Orders each list by id (stable: file order within an id) and counts the starts beyond one per id.
    void sort()
    {
        m_duplicateStarts = 0;
        for (Bucket& b : m_buckets) {
            b.ends.sortById();
            if (!b.starts.sorted()) {
                b.starts.sortById();
                b.adjacentDuplicateStarts = 0;
                FlowRecordList::Cursor c = b.starts.cursor();
                FlowRecord previous;
                std::size_t i = 0;
                for (FlowRecord r; c.next(r); previous = r, ++i) {
                    if (i > 0 && r.id() == previous.id())
                        ++b.adjacentDuplicateStarts;
                }
            }
            m_duplicateStarts += b.adjacentDuplicateStarts;
        }
        m_order.resize(m_buckets.size());
        for (std::uint32_t i = 0; i < m_order.size(); ++i)
            m_order[i] = i;
        std::stable_sort(m_order.begin(), m_order.end(),
                         [this](std::uint32_t a, std::uint32_t b) { return m_buckets[a].key < m_buckets[b].key; });
    }

    /// Forgets every category and event (the dialect stays).
    void clear()
    {
        m_buckets = std::vector<Bucket>();
        m_order = std::vector<std::uint32_t>();
        m_duplicateStarts = 0;
    }

    /// `s` events whose id already had one (in the same category); known after sort().
    [[nodiscard]] std::uint64_t duplicateStarts() const { return m_duplicateStarts; }

    /// Calls `fn(const FlowGroup&)` for each flow id, by (category key, id), after sort(). The group's records are
    /// valid during the call. `release` frees each category's events once it is done (the last walk).
    template <typename Fn> void forEachGroup(Fn&& fn, bool release)
    {
        for (const std::uint32_t c : m_order) {
            Bucket& b = m_buckets[c];
            FlowRecordList::Cursor starts = b.starts.cursor();
            FlowRecordList::Cursor ends = b.ends.cursor();
            FlowRecord start;
            FlowRecord end;
            bool hasStart = starts.next(start);
            bool hasEnd = ends.next(end);
            while (hasStart || hasEnd) {
                FlowGroup g;
                g.category = c;
                g.categoryKey = b.key;
                g.categoryText = b.text;
                g.id = !hasStart ? end.id() : !hasEnd ? start.id() : std::min(start.id(), end.id());
                bool first = true;
                while (hasStart && start.id() == g.id) {
                    if (first || m_dialect.start == FlowDialect::Start::Last)
                        m_groupStart = start;
                    first = false;
                    hasStart = starts.next(start);
                }
                if (!first)
                    g.start = &m_groupStart;
                m_groupEnds.clear();
                while (hasEnd && end.id() == g.id) {
                    m_groupEnds.push_back(end);
                    hasEnd = ends.next(end);
                }
                g.ends = std::span<const FlowRecord>(m_groupEnds.data(), m_groupEnds.size());
                fn(std::as_const(g));
            }
            if (release) {
                b.starts = FlowRecordList();
                b.ends = FlowRecordList();
                b.adjacentDuplicateStarts = 0;
            }
        }
        if (release)
            m_groupEnds = std::vector<FlowRecord>();
    }

private:
    struct Bucket
    {
        std::string text;
        std::uint32_t key = 0;
        FlowRecordList starts;
        FlowRecordList ends;
        // Starts whose id equals the previous start's (all of them once sorted).
        std::uint64_t adjacentDuplicateStarts = 0;
    };
    FlowDialect m_dialect;
    std::vector<Bucket> m_buckets;
    std::vector<std::uint32_t> m_order; // bucket numbers in walk order
    std::uint64_t m_duplicateStarts = 0;
    FlowRecord m_groupStart; // the group forEachGroup() shows
    std::vector<FlowRecord> m_groupEnds;
};

} // namespace timesink::parsers
