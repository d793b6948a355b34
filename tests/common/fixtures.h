// SPDX-License-Identifier: MIT
#pragma once

// Loading a real profiler fixture (TIMESINK_FIXTURES_DIR, set for every test by timesink_add_test) through the
// registered importers, for the integration tests of the layers above the parsers. The test links
// timesink_parsers (and timesink_testsupport for this header).
//
//   LOAD_OR_SKIP(trace, std::string("torch/torch_cpu_legacy_resnet18_train_2steps.json"));
//   // here `trace` is a loaded model::TracePtr

#include "parsers/common/traceloader.h"

#include <QTest>

#include <filesystem>

namespace timesink::testing {

inline const std::filesystem::path kFixturesDir = TIMESINK_FIXTURES_DIR;

} // namespace timesink::testing

// Declares `model::TracePtr var` holding the fixture at `rel` (a std::string relative to the fixtures folder).
// A format with no registered importer skips the test; any other failure fails it with the importer's message.
// A macro because QSKIP / QVERIFY2 must return from the test function itself.
#define LOAD_OR_SKIP(var, rel)                                                                                    \
    ::timesink::model::TracePtr var;                                                                              \
    do {                                                                                                          \
        ::timesink::parsers::ProgressSink progress;                                                               \
        ::timesink::parsers::ImportResult result = ::timesink::parsers::loadTrace(                                \
            ::timesink::testing::kFixturesDir / (rel), ::timesink::parsers::ImportOptions {}, progress);          \
        if (result.errorKind == ::timesink::parsers::ImportErrorKind::NotRecognised)                              \
            QSKIP(qPrintable(QStringLiteral("no importer registered for %1 yet").arg(QString::fromStdString(rel)))); \
        QVERIFY2(result.ok(), result.error.c_str());                                                              \
        var = result.trace;                                                                                       \
    } while (false)
