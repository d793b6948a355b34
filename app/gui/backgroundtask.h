// SPDX-License-Identifier: MIT
#pragma once

#include <QFuture>
#include <QString>
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
template <typename Fn, typename OnFailure> auto runInBackground(Fn fn, OnFailure onFailure)
{
    using Result = std::invoke_result_t<Fn&>;
    return QtConcurrent::run([fn = std::move(fn), onFailure = std::move(onFailure)]() mutable -> Result {
        try {
            return fn();
        } catch (...) {
            return onFailure(backgroundFailureMessage(std::current_exception()));
        }
    });
}

} // namespace timesink::gui
