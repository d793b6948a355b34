// SPDX-License-Identifier: MIT
// Status and Expected<T>, the one result type (model/expected.h): a value or a failed Status, never both; the kind
// survives copies and moves, so that callers can tell a cancelled load from a failed one without reading the message.
#include "model/expected.h"

#include <QTest>

#include <memory>
#include <optional>
#include <string>

using namespace timesink::model;

namespace {

Expected<int> half(int n)
{
    if (n % 2 != 0)
        return Status(StatusKind::Malformed, "odd.txt: " + std::to_string(n) + " is odd");
    return n / 2;
}

Status check(bool cancelled)
{
    if (cancelled)
        return {StatusKind::Cancelled, "cancelled by the user"};
    return {};
}

} // namespace

class TestExpected : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void defaultStatusIsSuccess()
    {
        const Status s;
        QVERIFY(s.ok());
        QVERIFY(static_cast<bool>(s));
        QCOMPARE(s.kind(), StatusKind::Ok);
        QVERIFY(!s.cancelled());
        QVERIFY(s.message().empty());
        QVERIFY(check(false).ok());
    }

    void failedStatusKeepsKindAndMessage()
    {
        const Status s = check(true);
        QVERIFY(!s.ok());
        QVERIFY(!s);
        QVERIFY(s.cancelled());
        QCOMPARE(s.kind(), StatusKind::Cancelled);
        QCOMPARE(s.message(), std::string("cancelled by the user"));
    }

    void valueOrStatus()
    {
        const Expected<int> good = half(8);
        QVERIFY(good.ok());
        QVERIFY(static_cast<bool>(good));
        QCOMPARE(good.value(), 4);
        QVERIFY(good.status().ok());

        const Expected<int> bad = half(7);
        QVERIFY(!bad.ok());
        QVERIFY(!bad);
        QCOMPARE(bad.status().kind(), StatusKind::Malformed);
        QCOMPARE(bad.status().message(), std::string("odd.txt: 7 is odd"));
        QVERIFY_THROWS_EXCEPTION(std::bad_optional_access, (void)bad.value());
    }

    void neverOkWithoutValue()
    {
        // Not set yet, or given an ok Status by mistake: a failure either way.
        const Expected<int> unset;
        QVERIFY(!unset.ok());
        QCOMPARE(unset.status().kind(), StatusKind::Failed);
        const Expected<int> fromOk = Status();
        QVERIFY(!fromOk.ok());
        QCOMPARE(fromOk.status().kind(), StatusKind::Failed);
    }

    void movesOnlyValues()
    {
        Expected<std::unique_ptr<int>> p = std::make_unique<int>(3);
        QVERIFY(p.ok());
        const std::unique_ptr<int> taken = std::move(p).value();
        QCOMPARE(*taken, 3);

        Expected<std::string> s = std::string("kept");
        Expected<std::string> copy = s;
        QCOMPARE(copy.value(), std::string("kept"));
        copy = Status(StatusKind::CannotRead, "gone.json: no such file");
        QVERIFY(!copy.ok());
        QCOMPARE(copy.status().kind(), StatusKind::CannotRead);
        QCOMPARE(s.value(), std::string("kept"));
    }
};

QTEST_APPLESS_MAIN(TestExpected)
#include "tst_expected.moc"
