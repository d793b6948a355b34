// SPDX-License-Identifier: MIT
#pragma once

// QCOMPARE of two std::string values prints both on failure (Qt only knows how to print its own string types).

#include <QTest>

#include <string>

namespace QTest {
template <> inline char* toString(const std::string& s)
{
    return qstrdup(s.c_str());
}
} // namespace QTest
