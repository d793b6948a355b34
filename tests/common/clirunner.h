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
#include <QDebug>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace timesink::testing {

struct CliRun
{
    // -1 when the process crashed, could not start or ran past the timeout; otherwise its exit code (also when a
    // sanitizer stopped it, whose report runCli then prints).
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
    const bool finished = p.waitForFinished(kCliTimeoutMs);
    if (!finished) {
        p.kill();
        p.waitForFinished();
    }
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    // A sanitizer that caught a crash or an error reports it on stderr and exits normally with code 1.
    const bool sanitizerReport = r.err.contains("Sanitizer") || r.err.contains("runtime error: ");
    if (finished && p.exitStatus() == QProcess::NormalExit && !sanitizerReport) {
        r.exitCode = p.exitCode();
        return r;
    }
    // No test expects a crash, a hang or a failed start: say which, with what the command wrote to stderr (a
    // sanitizer's report goes there), so a failure seen once in CI can be diagnosed from its log.
    const char* what = "crashed";
    if (p.error() == QProcess::FailedToStart)
        what = "did not start";
    else if (!finished)
        what = "ran past the timeout";
    else if (sanitizerReport)
        what = "was stopped by a sanitizer";
    if (finished && p.exitStatus() == QProcess::NormalExit)
        r.exitCode = p.exitCode();
    qWarning().noquote() << "timesink-cli" << args.join(QLatin1Char(' ')) << what << "(exit code" << p.exitCode()
                         << ") and wrote to stderr:\n"
                         << QString::fromUtf8(r.err.right(16000));
    return r;
}

} // namespace timesink::testing
