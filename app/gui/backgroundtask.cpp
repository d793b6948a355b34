// SPDX-License-Identifier: MIT
#include "app/gui/backgroundtask.h"

#include "widgets/backgroundrunner.h"

#include <QCoreApplication>
#include <QFutureWatcher>

#include <functional>
#include <new>
#include <stdexcept>
#include <utility>

namespace timesink::gui {

QString backgroundFailureMessage(const std::exception_ptr& error)
{
    try {
        std::rethrow_exception(error);
    } catch (const std::bad_alloc&) {
        return QCoreApplication::translate("BackgroundTask",
                                           "out of memory: this needs more memory than the machine has left (close "
                                           "other windows or programs and try again)");
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    } catch (...) {
        return QCoreApplication::translate("BackgroundTask", "an unknown error stopped the background work");
    }
}

void installWidgetBackgroundRunner()
{
    widgets::setBackgroundRunner([](QObject* context, widgets::BackgroundJob job) {
        // The watcher lives on the UI thread as the view's child: the continuation runs there, and is dropped with
        // the view (the job still finishes on its pool thread; its result is discarded).
        using Continuation = std::function<void()>;
        auto* watcher = new QFutureWatcher<Continuation>(context);
        QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, [watcher] {
            const Continuation then = watcher->result();
            watcher->deleteLater();
            if (then)
                then();
        });
        // Jobs catch their own failures (widgets/backgroundrunner.h); anything else leaves the view as it was.
        watcher->setFuture(runInBackground(std::move(job), [](const QString&) { return Continuation(); }));
    });
}

} // namespace timesink::gui
