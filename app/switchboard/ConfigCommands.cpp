#include "ConfigCommands.h"

#include "CommandLine.h"

#include "common/Clock.h"
#include "engine/ConfigTransfer.h"

#include <QFileInfo>

#include <cstdio>

namespace {

void printLines(std::FILE *to, const QStringList &lines, const char *prefix = "")
{
    for (const QString &line : lines)
        std::fprintf(to, "%s%s\n", prefix, qPrintable(line));
}

int runExport(sb::ConfigTransfer &transfer, const AppOptions &options)
{
    QStringList warnings;
    QString error;
    if (!transfer.exportTo(options.exportPath, options.exportWithKeys, &warnings, &error)) {
        std::fprintf(stderr, "switchboard: %s\n", qPrintable(error));
        return 1;
    }
    printLines(stderr, warnings, "switchboard: ");
    std::printf("Exported the configuration of %s to %s%s.\n", qPrintable(transfer.databasePath()), qPrintable(options.exportPath),
                options.exportWithKeys ? " with its API keys (file mode 0600)" : "");
    return 0;
}

int runImport(sb::ConfigTransfer &transfer, const AppOptions &options)
{
    const sb::ConfigImportPlan plan = transfer.plan(options.importPath);
    printLines(stderr, plan.warnings, "switchboard: ");
    if (!plan.ok()) {
        printLines(stderr, plan.errors, "switchboard: ");
        std::fprintf(stderr, "switchboard: nothing was imported; %s is unchanged.\n", qPrintable(transfer.databasePath()));
        return 1;
    }
    if (plan.diff.isEmpty()) {
        std::printf("%s already holds this configuration; nothing to change.\n", qPrintable(transfer.databasePath()));
    } else {
        std::printf("Importing %s into %s:\n", qPrintable(options.importPath), qPrintable(transfer.databasePath()));
        printLines(stdout, plan.diff.lines(), "  ");
    }
    if (const QString keys = plan.diff.keysSentence(); !keys.isEmpty())
        std::printf("%s\n", qPrintable(keys));
    QStringList errors;
    if (!transfer.apply(plan, QStringLiteral("imported from %1").arg(QFileInfo(options.importPath).fileName()), &errors)) {
        printLines(stderr, errors, "switchboard: ");
        std::fprintf(stderr, "switchboard: nothing was imported; %s is unchanged.\n", qPrintable(transfer.databasePath()));
        return 1;
    }
    std::printf("Saved. A Switchboard running on this database applies it on its next reload "
                "(systemctl reload switchboard, or POST /admin/reload).\n");
    return 0;
}

} // namespace

int runConfigCommand(const AppOptions &options)
{
    sb::ConfigTransfer transfer(sb::SystemClock::instance());
    QString error;
    // The keys go where the same run would keep them: a service's in the database file.
    if (!transfer.open(options.dbPath, options.headless ? sb::SecretStoreFactory::Preference::FileForNewDatabase : sb::SecretStoreFactory::Preference::Auto, &error)) {
        std::fprintf(stderr, "switchboard: %s\n", qPrintable(error));
        return 1;
    }
    return options.exportPath.isEmpty() ? runImport(transfer, options) : runExport(transfer, options);
}
