// SPDX-License-Identifier: MIT
#pragma once

// Runs the built timesink-cli from a test and collects what it printed, for the end-to-end tests of the
// analyze, compare and export commands. The including test defines TIMESINK_CLI_PATH to the executable
// (target_compile_definitions(... TIMESINK_CLI_PATH="$<TARGET_FILE:timesink-cli>")) and links
// timesink_testsupport.
//
//   const CliRun r = runCli({QStringLiteral("analyze"), trace, QStringLiteral("--fail-above"), QStringLiteral("20")});
//   QCOMPARE(r.exitCode, 3); // r.out / r.err hold stdout / stderr
#ifndef TIMESINK_CLI_PATH
#error "define TIMESINK_CLI_PATH to the timesink-cli executable before including tests/common/clirunner.h"
#endif

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace timesink::testing {

struct CliRun
{
    // -1 when the process crashed, could not start or ran past the timeout; otherwise its exit code.
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// Far above what any command run by the tests needs; past it the run counts as hung (exitCode -1) instead of
// blocking until ctest's own timeout.
inline constexpr int kCliTimeoutMs = 120'000;

inline CliRun runCli(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(TIMESINK_CLI_PATH), args);
    CliRun r;
    if (!p.waitForFinished(kCliTimeoutMs)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace timesink::testing
