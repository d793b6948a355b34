// SPDX-License-Identifier: MIT
#include "model/memoryhint.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace timesink::model {

namespace {

// madvise(`advice`) over the `alignment`-aligned whole units inside [data, data + bytes).
[[maybe_unused]] void adviseAlignedInterior(void* data, std::size_t bytes, std::size_t alignment, int advice) noexcept
{
#if defined(__linux__)
    auto* p = static_cast<char*>(data);
    if (p == nullptr || alignment == 0)
        return;
    const std::size_t head = (alignment - reinterpret_cast<std::uintptr_t>(p) % alignment) % alignment;
    if (bytes <= head)
        return;
    const std::size_t length = (bytes - head) / alignment * alignment;
    if (length > 0)
        (void)::madvise(p + head, length, advice);
#else
    (void)data;
    (void)bytes;
    (void)alignment;
    (void)advice;
#endif
}

} // namespace

void prefaultForWrite(void* data, std::size_t bytes) noexcept
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    static const auto pageSize = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    adviseAlignedInterior(data, bytes, pageSize, MADV_POPULATE_WRITE);
#else
    (void)data;
    (void)bytes;
#endif
}

void adviseHugePages(void* data, std::size_t bytes) noexcept
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::size_t kHuge = std::size_t(2) << 20;
    if (bytes >= kHuge)
        adviseAlignedInterior(data, bytes, kHuge, MADV_HUGEPAGE);
#else
    (void)data;
    (void)bytes;
#endif
}

} // namespace timesink::model
