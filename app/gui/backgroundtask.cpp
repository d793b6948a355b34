// SPDX-License-Identifier: MIT
#include "app/gui/backgroundtask.h"

#include <QCoreApplication>

#include <new>
#include <stdexcept>

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

} // namespace timesink::gui
