// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>

// Defined in builds with AddressSanitizer (GCC's and clang's ways of saying so), whose allocator replaces malloc.
#if defined(__SANITIZE_ADDRESS__)
#define TIMESINK_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TIMESINK_ADDRESS_SANITIZER 1
#endif
#endif

namespace timesink::model {

/// Memory advice and mappings for the model's large blocks: the one place the model asks the operating system
/// about pages. The advice calls are hints: where the system lacks them (or refuses), nothing else changes.
///
/// Why: touching fresh memory costs a page fault per 4 KiB, and in a virtual machine each fault is an exit to the
/// hypervisor. What a fresh page costs on the 2-core CI machine moves from day to day: a first write to 256 MB
/// took 0.80 s page by page and 0.42 s when each 256 KiB was mapped by one call first on 2026-12-02, and 0.15 s
/// and 0.11 s on 2026-12-03. Mapping ahead in one call (prefaultForWrite) was the cheaper way on both days.
///
/// Timesink asks for no transparent huge pages (the system's policy, `transparent_hugepage/enabled`, still
/// applies). On the CI machine (2026-12-03) a huge page cost 4-6 times what its 512 small pages cost when mapped
/// by MADV_POPULATE_WRITE or written page by page (256 MB: 0.65-0.79 s against 0.11-0.16 s, in fresh processes
/// and just after one that freed as much): the advice on the model's columns made the 1 GB torch_npu import spend
/// ~0.35 s more system time and its snapshot reopen twice as long. On hardware without a hypervisor a huge page
/// saves ~0.1 ms of faults per 2 MiB, a few milliseconds for the whole model.

/// Large blocks in mappings of their own, for PodBuffer's columns past 256 KiB: 2 MiB-aligned (where the
/// system's policy gives huge pages, a block uses them from its start), grown and shrunk by remapping (no copy).
/// Where the system has no mremap they are malloc/realloc/free blocks. mapLarge/remapLarge return nullptr when out
/// of memory (the old block then stays).
void* mapLarge(std::size_t bytes) noexcept;
void* remapLarge(void* block, std::size_t oldBytes, std::size_t newBytes) noexcept;
void unmapLarge(void* block, std::size_t bytes) noexcept;

/// Blocks allocated at their final size and then written whole (ColumnVector's, from kColumnMapFromBytes): a mapping
/// of their own (mapLarge), so that freeing one gives its pages back to the system at once. Returns nullptr when
/// out of memory; where the system has no mmap they are malloc blocks.
inline constexpr std::size_t kColumnMapFromBytes = std::size_t(2) << 20;
void* allocateColumnBlock(std::size_t bytes) noexcept;
void freeColumnBlock(void* block, std::size_t bytes) noexcept;

/// Maps the whole pages inside [data, data + bytes) for writing, with one call (MADV_POPULATE_WRITE).
void prefaultForWrite(void* data, std::size_t bytes) noexcept;

} // namespace timesink::model
