// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

namespace timesink::model {

/// Time is int64 nanoseconds everywhere (absolute trace clock, usually Unix epoch).
using TimeNs = std::int64_t;

/// A typed index. Distinct tags make `TrackId` and `StringId` impossible to mix up.
template <typename Tag, typename Rep = std::uint32_t> struct TypedIndex
{
    static constexpr Rep kInvalid = std::numeric_limits<Rep>::max();
    Rep value = kInvalid;

    constexpr TypedIndex() = default;
    constexpr explicit TypedIndex(Rep v)
        : value(v)
    {
    }
    [[nodiscard]] constexpr bool isValid() const { return value != kInvalid; }
    constexpr explicit operator bool() const { return isValid(); }
    constexpr auto operator<=>(const TypedIndex&) const = default;
};

/// Interned string; 0 is the empty string ("none"), so a default-constructed id means "no name".
struct StringId
{
    std::uint32_t value = 0;
    constexpr StringId() = default;
    constexpr explicit StringId(std::uint32_t v)
        : value(v)
    {
    }
    [[nodiscard]] constexpr bool isEmpty() const { return value == 0; }
    constexpr auto operator<=>(const StringId&) const = default;
};

using TrackId = TypedIndex<struct TrackTag>;
using SliceIndex = TypedIndex<struct SliceTag>;
using ArgSetId = TypedIndex<struct ArgSetTag>;

/// A slice anywhere in the trace: its track and its index in that track (after finalize, in (ts, -dur) order).
struct SliceRef
{
    TrackId track;
    SliceIndex index;
    [[nodiscard]] constexpr bool isValid() const { return track.isValid() && index.isValid(); }
    constexpr auto operator<=>(const SliceRef&) const = default;
};

/// Closed set of slice categories that the analyses understand.
enum class SliceCategory : std::uint8_t {
    HostOp,
    PythonFrame,
    RuntimeApi,
    Kernel,
    Memcpy,
    Memset,
    Sync,
    Communication,
    Dataloader,
    Step,
    Annotation,
    FallbackOp,
    Other,
};
inline constexpr int kSliceCategoryCount = 13;

/// Stable snake_case key used by the CLI and reports (`host_op`, `kernel`, …).
std::string_view categoryKey(SliceCategory c);
/// Human label ("Host op", "Kernel", …).
std::string_view categoryLabel(SliceCategory c);

enum class MemcpyDirection : std::uint8_t { None, HostToDevice, DeviceToHost, DeviceToDevice, PeerToPeer };
enum class HostMemoryKind : std::uint8_t { Unknown, Pageable, Pinned };

std::string_view directionKey(MemcpyDirection d); // "htod", "dtoh", "dtod", "p2p", ""

enum class DeviceKind : std::uint8_t { Cpu, Gpu, Npu, EdgeNpu };
std::string_view deviceKindKey(DeviceKind k); // "cpu", "gpu", "npu", "edge_npu"

/// The software stack a trace came from; recommendations are written in its terms. Importers that know it set
/// TraceMetadata::platform (torch_npu/msprof → TorchNpuCann, RKNN → Rknn); a trace left at Generic gets the one
/// its devices show when it is finalized (inferPlatform, model/trace.h).
enum class Platform : std::uint8_t { Generic, PyTorchCuda, PyTorchRocm, TorchNpuCann, Rknn, Cpu };
/// Stable key: "generic", "pytorch_cuda", "pytorch_rocm", "torch_npu_cann", "rknn", "cpu".
std::string_view platformKey(Platform p);
/// The platform with that key; Generic for any other text.
Platform platformFromKey(std::string_view key);

enum class TrackRole : std::uint8_t { HostThread, DeviceCompute, DeviceCopy, Communication, Counter, Synthetic };
std::string_view trackRoleKey(TrackRole r);

enum class FlowKind : std::uint8_t { Launch, ForwardBackward, Other };
std::string_view flowKindKey(FlowKind k);

/// Per-slice flag bits (besides the memcpy direction and host-memory kind, which have their own bits).
namespace SliceFlags {
inline constexpr std::uint8_t kDirectionMask = 0x07; // MemcpyDirection
inline constexpr std::uint8_t kMemoryShift = 3;
inline constexpr std::uint8_t kMemoryMask = 0x18;     // HostMemoryKind << 3
inline constexpr std::uint8_t kSynchronous = 0x20;    // a copy/sync the host waited for
inline constexpr std::uint8_t kUnmatched = 0x40;      // a B without E (closed at trace end) or similar repair
inline constexpr std::uint8_t kPartialOverlap = 0x80; // overlapped a sibling without nesting
} // namespace SliceFlags

} // namespace timesink::model
