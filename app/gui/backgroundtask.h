// SPDX-License-Identifier: MIT
#pragma once

#include <QFuture>
#include <QString>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>
#include <type_traits>
#include <utility>

namespace timesink::gui {

/// What an exception thrown by background work says to a user: allocation failure is "out of memory …", anything
/// else its what().
QString backgroundFailureMessage(const std::exception_ptr& error);

/// The one way the desktop app runs work on Qt's thread pool (the libraries' threads go through model/workers.h; the
/// `thread_starts` test greps that nothing else starts one). fn runs on a pool thread; whatever it throws is caught
/// there and turned into onFailure(message)'s result. Without this, QFutureWatcher::result() would rethrow the
/// worker's exception in the event loop, where it ends the process.
/// The pool runInBackground uses: the app's own, not Qt's global one. Qt's raster engine hands parts of large paints
/// to the global pool and waits for them on the UI thread, so an analysis of 10 s there froze the window for 10 s.
inline QThreadPool* backgroundPool()
{
    static QThreadPool pool;
    return &pool;
}

template <typename Fn, typename OnFailure> auto runInBackground(Fn fn, OnFailure onFailure)
{
    using Result = std::invoke_result_t<Fn&>;
    return QtConcurrent::run(backgroundPool(),
                             [fn = std::move(fn), onFailure = std::move(onFailure)]() mutable -> Result {
                                 try {
                                     return fn();
                                 } catch (...) {
                                     return onFailure(backgroundFailureMessage(std::current_exception()));
                                 }
                             });
}

/// Lets the widgets hand off slow work (widgets::runInBackground: call trees over a big trace) to the pool through
/// runInBackground; each continuation runs on the UI thread, and not at all once its view is gone. Called by every
/// MainWindow (idempotent).
void installWidgetBackgroundRunner();

} // namespace timesink::gui
