// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by the snapshot tests: the list of every fixture under tests/data (so that a new fixture is
// covered without touching the tests), and reading/patching whole files.

#include "parsers/registry/traceloader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace timesink::testing {

inline std::string readFile(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void writeFile(const std::filesystem::path& p, const std::string& bytes)
{
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Every trace under tests/data, relative to it: each entry of a format folder (torch/, torch_npu/, msprof/,
/// rknn/) that Timesink opens, and for a folder it does not open as a whole (a set of ranks), each entry inside.
/// Entries that are no trace (licences, notes) are left out by name.
inline std::vector<std::string> allFixtures()
{
    namespace fs = std::filesystem;
    const fs::path root = TIMESINK_FIXTURES_DIR;
    std::vector<std::string> out;
    auto opens = [](const fs::path& p) {
        const model::Expected<parsers::SourceProbe> probe = parsers::probeSource(p);
        if (!probe.ok())
            return false;
        for (const auto& importer : parsers::allImporters()) {
            if (importer->probe(probe.value()) > 0)
                return true;
        }
        return false;
    };
    auto isNote = [](const fs::path& p) {
        const std::string ext = p.extension().string();
        const std::string name = p.filename().string();
        return ext == ".md" || ext == ".txt" ? name.find("LICENSE") != std::string::npos || name == "SOURCES.md"
                                             : name.rfind("LICENSE", 0) == 0 || name.rfind("NOTICE", 0) == 0;
    };
    std::vector<fs::path> families;
    for (const auto& e : fs::directory_iterator(root)) {
        // LICENSES: the licence texts of the fixtures' origins; reference: other tools' reports on the fixtures.
        if (e.is_directory() && e.path().filename() != "LICENSES" && e.path().filename() != "reference")
            families.push_back(e.path());
    }
    std::sort(families.begin(), families.end());
    for (const fs::path& family : families) {
        std::vector<fs::path> entries;
        for (const auto& e : fs::directory_iterator(family))
            entries.push_back(e.path());
        std::sort(entries.begin(), entries.end());
        for (const fs::path& e : entries) {
            if (isNote(e))
                continue;
            if (fs::is_directory(e) && !opens(e)) {
                std::vector<fs::path> inner;
                for (const auto& i : fs::directory_iterator(e))
                    inner.push_back(i.path());
                std::sort(inner.begin(), inner.end());
                for (const fs::path& i : inner)
                    out.push_back(fs::relative(i, root).generic_string());
            } else {
                out.push_back(fs::relative(e, root).generic_string());
            }
        }
    }
    return out;
}

} // namespace timesink::testing
