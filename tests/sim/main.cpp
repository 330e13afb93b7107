#include "Scenario.h"

#include <QCoreApplication>
#include <QTextStream>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QTextStream err(stderr);
    const QStringList args = app.arguments();
    if (args.size() < 3) {
        err << "usage: switchboard-sim serve|drill|check SCENARIO.json [--proxy URL] [--json FILE]\n";
        return 2;
    }
    QStringList errors;
    if (!sb::sim::Scenario::fromFile(args.at(2), &errors)) {
        for (const QString &e : errors)
            err << e << '\n';
        return 1;
    }
    return 0;
}
