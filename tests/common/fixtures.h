// SPDX-License-Identifier: MIT
#pragma once

// Loading a real profiler fixture (tests/data, TIMESINK_FIXTURES_DIR, set for every test by timesink_add_test) through
// the registered importers, for the integration tests of the layers above the parsers. The test links timesink_parsers
// (and timesink_testsupport for this header).
//
//   LOAD_FIXTURE(trace, std::string("torch/torch_cpu_legacy_resnet18_train_2steps.json"));
//   // here `trace` is a loaded model::TracePtr

#include "parsers/registry/traceloader.h"

#include <QTest>

#include <filesystem>

namespace timesink::testing {

inline const std::filesystem::path kFixturesDir = TIMESINK_FIXTURES_DIR;

} // namespace timesink::testing

// Declares `model::TracePtr var` holding the fixture at `rel` (a std::string relative to the fixtures folder).
// Every failure fails the test with the importer's message: a fixture that is no longer recognised is a detection
// regression, never a reason to skip.
// A macro because QVERIFY2 must return from the test function itself.
#define LOAD_FIXTURE(var, rel)                                                                                         \
    ::timesink::model::TracePtr var;                                                                                   \
    do {                                                                                                               \
        ::timesink::parsers::ProgressSink progress;                                                                    \
        ::timesink::parsers::ImportResult result = ::timesink::parsers::loadTrace(                                     \
            ::timesink::testing::kFixturesDir / (rel), ::timesink::parsers::ImportOptions {}, progress);               \
        QVERIFY2(result.ok(), result.status().message().c_str());                                                      \
        var = result.value();                                                                                          \
    } while (false)
