// SPDX-License-Identifier: MIT
#pragma once

#include "model/podbuffer.h"
#include "model/types.h"

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

namespace timesink::parsers::chromejson {

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
        // 38 decimal digits always fit in 128 bits.
        const bool numeric = !text.empty() && text.size() <= 38
            && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!numeric) {
            id.lo = intern(text);
            id.digits = kText;
            return id;
        }
        // Up to 19 digits fit in 64 bits; longer ids combine two 64-bit halves.
        auto digitsValue = [](std::string_view d) {
            std::uint64_t v = 0;
            for (const char c : d)
                v = v * 10 + static_cast<unsigned>(c - '0');
            return v;
        };
        if (text.size() <= 19) {
            id.lo = digitsValue(text);
        } else {
            __extension__ using U128 = unsigned __int128;
            const std::size_t tail = text.size() - 19;
            U128 scale = 1;
            for (std::size_t i = 0; i < tail; ++i)
                scale *= 10;
            const U128 v = static_cast<U128>(digitsValue(text.substr(0, 19))) * scale + digitsValue(text.substr(19));
            id.hi = static_cast<std::uint64_t>(v >> 64);
            id.lo = static_cast<std::uint64_t>(v);
        }
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
/// buckets of starts and ends (PodBuffers: millions of events grow by realloc, without copies). The writers
/// number flows in file order, so each list is usually sorted already and pairing is a linear merge; otherwise a
/// stable sort first, so file order is kept among events of one id.
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
        model::PodBuffer<FlowRecord>& list = start ? b.starts : b.ends;
        // Writers number flows in file order: whether a list is still sorted, and a sorted list's repeated start
        // ids, are known here from the previous record (in cache), so sort() makes no pass over sorted lists.
        if (!list.empty()) {
            const FlowId last = list.back().id();
            if (id < last)
                (start ? b.startsSorted : b.endsSorted) = false;
            else if (start && id == last)
                ++b.adjacentDuplicateStarts;
        }
        list.push_back(FlowRecord {id.hi, id.lo, ts, endpoint, id.digits, bindEnclosing});
    }

    [[nodiscard]] bool empty() const
    {
        return std::all_of(m_buckets.begin(), m_buckets.end(),
                           [](const Bucket& b) { return b.starts.empty() && b.ends.empty(); });
    }

    /// Orders each list by id (stable: file order within an id) and counts the starts beyond one per id.
    void sort()
    {
        auto byId = [](const FlowRecord& a, const FlowRecord& b) { return a.id() < b.id(); };
        m_duplicateStarts = 0;
        for (Bucket& b : m_buckets) {
            if (!b.endsSorted) {
                std::stable_sort(b.ends.begin(), b.ends.end(), byId);
                b.endsSorted = true;
            }
            if (!b.startsSorted) {
                std::stable_sort(b.starts.begin(), b.starts.end(), byId);
                b.startsSorted = true;
                b.adjacentDuplicateStarts = 0;
                for (std::size_t i = 1; i < b.starts.size(); ++i) {
                    if (b.starts[i].id() == b.starts[i - 1].id())
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

    /// Calls `fn(const FlowGroup&)` for each flow id, by (category key, id), after sort(). `release` frees each
    /// category's events once it is done (the last walk).
    template <typename Fn> void forEachGroup(Fn&& fn, bool release)
    {
        for (const std::uint32_t c : m_order) {
            Bucket& b = m_buckets[c];
            const model::PodBuffer<FlowRecord>& starts = b.starts;
            const model::PodBuffer<FlowRecord>& ends = b.ends;
            std::size_t s = 0;
            std::size_t f = 0;
            while (s < starts.size() || f < ends.size()) {
                FlowGroup g;
                g.category = c;
                g.categoryKey = b.key;
                g.categoryText = b.text;
                g.id = s == starts.size() ? ends[f].id()
                    : f == ends.size()    ? starts[s].id()
                                          : std::min(starts[s].id(), ends[f].id());
                const std::size_t firstStart = s;
                while (s < starts.size() && starts[s].id() == g.id)
                    ++s;
                if (s > firstStart)
                    g.start = &starts[m_dialect.start == FlowDialect::Start::First ? firstStart : s - 1];
                const std::size_t firstEnd = f;
                while (f < ends.size() && ends[f].id() == g.id)
                    ++f;
                g.ends = std::span<const FlowRecord>(ends.data() + firstEnd, f - firstEnd);
                fn(std::as_const(g));
            }
            if (release) {
                b.starts = model::PodBuffer<FlowRecord>();
                b.ends = model::PodBuffer<FlowRecord>();
                b.adjacentDuplicateStarts = 0;
            }
        }
    }

private:
    struct Bucket
    {
        std::string text;
        std::uint32_t key = 0;
        model::PodBuffer<FlowRecord> starts;
        model::PodBuffer<FlowRecord> ends;
        bool startsSorted = true; // by id, as added so far
        bool endsSorted = true;
        // Starts whose id equals the previous start's (all of them once sorted).
        std::uint64_t adjacentDuplicateStarts = 0;
    };
    FlowDialect m_dialect;
    std::vector<Bucket> m_buckets;
    std::vector<std::uint32_t> m_order; // bucket numbers in walk order
    std::uint64_t m_duplicateStarts = 0;
};

} // namespace timesink::parsers::chromejson
