// SPDX-License-Identifier: MIT
// Without libFuzzer (the ordinary gcc build): runs a fuzz target once on every file of the folders given, so the
// regression inputs (tests/fuzz/<target>/) are replayed by ctest on every build. An input that runs longer than
// kSecondsPerInput is a hang, as under libFuzzer's -timeout: the replay names it and aborts.
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

constexpr unsigned kSecondsPerInput = 60; // the sanitizer build's slowest regression input takes ~1 s
char g_current[4096] = "";                // the input running, for the alarm handler

void onAlarm(int /*signal*/)
{
    // Only async-signal-safe calls here.
    constexpr char kWhat[] = "replay: an input ran past the per-input time limit (a hang): ";
    (void)!::write(STDERR_FILENO, kWhat, sizeof kWhat - 1);
    (void)!::write(STDERR_FILENO, g_current, std::strlen(g_current));
    (void)!::write(STDERR_FILENO, "\n", 1);
    std::_Exit(1);
}

} // namespace

int main(int argc, char** argv)
{
    std::size_t runs = 0;
    std::signal(SIGALRM, onAlarm);
    for (int i = 1; i < argc; ++i) {
        std::vector<std::filesystem::path> files;
        if (std::filesystem::is_directory(argv[i])) {
            for (const auto& e : std::filesystem::recursive_directory_iterator(argv[i]))
                if (e.is_regular_file())
                    files.push_back(e.path());
        } else {
            files.emplace_back(argv[i]);
        }
        for (const auto& f : files) {
            std::ifstream in(f, std::ios::binary);
            const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            const std::string name = f.string();
            std::strncpy(g_current, name.c_str(), sizeof g_current - 1);
            ::alarm(kSecondsPerInput);
            LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
            ::alarm(0);
            ++runs;
        }
    }
    std::printf("replayed %zu inputs\n", runs);
    return runs > 0 ? 0 : 1;
}
