// SPDX-License-Identifier: MIT
#pragma once

// QVERIFY_OK(expr): `expr`, a model::Status or a model::Expected<T>, succeeded; otherwise the test fails with its
// message (which names the file and what was wrong).
//
//   QVERIFY_OK(snap::writeSnapshot(*trace, {}, file));

#include "model/expected.h"

#include <QTest>

namespace timesink::testing {

inline const model::Status& statusOf(const model::Status& status)
{
    return status;
}

template <class T> const model::Status& statusOf(const model::Expected<T>& expected)
{
    return expected.status();
}

} // namespace timesink::testing

// A macro because QVERIFY2 must return from the test function itself. `auto&&` keeps a returned temporary alive.
#define QVERIFY_OK(expr)                                                                                               \
    do {                                                                                                               \
        auto&& checkedResult_ = (expr);                                                                                \
        const ::timesink::model::Status& checkedStatus_ = ::timesink::testing::statusOf(checkedResult_);               \
        QVERIFY2(checkedStatus_.ok(), checkedStatus_.message().c_str());                                               \
    } while (false)
