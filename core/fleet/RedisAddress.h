#pragma once

#include <QString>

namespace sb {

// Where a fleet's Redis is: `redis://[[user]:password@]host[:port][/db]`. The password is a secret:
// it leaves this type only for the AUTH command, and display() masks it.
struct RedisAddress {
    QString host;
    int port = 6379;
    QString user;     // Redis 6 ACL user; empty = the default user
    QString password; // empty = no AUTH
    int database = 0;

    // The address in `url`; when it is none, an empty host and `error` a sentence saying what to write.
    static RedisAddress parse(const QString &url, QString *error);
    // The URL with the password replaced by "…", for logs, the console and /admin/fleet.
    QString display() const;
    bool operator==(const RedisAddress &) const = default;
};

} // namespace sb
