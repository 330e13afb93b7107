#pragma once

#include <QString>
#include <QStringView>
#include <QUrl>

#include <initializer_list>

namespace sb {

// The one reading of a provider's base URL, the same for every dialect (CONFIG_FORMAT.md, "Base
// URLs"): surrounding blanks and trailing slashes are dropped; a base URL that is only
// scheme://host[:port] gets the dialect's version path ("/v1", "/v1beta", "/api/v1", …); one that
// ends with a version path of the dialect, or has any other path, is used as given. "Any other path"
// is a relay mounting the API elsewhere, or a vendor's own version of an OpenAI-compatible API
// (/api/paas/v4, /v1beta/openai, /compatible-mode/v1), which a version appended blindly would break.
struct ApiBaseUrl {
    QString root; // without the version path: "https://dashscope.aliyuncs.com"
    QString api;  // where the dialect's paths hang from: "https://dashscope.aliyuncs.com/api/v1"
};

// `versionPaths`: the dialect's version paths, the one to add first ({u"/v1beta", u"/v1"}).
ApiBaseUrl readApiBaseUrl(const QString &baseUrl, std::initializer_list<QStringView> versionPaths);

// readApiBaseUrl(baseUrl, {versionPath}).api + path. Every attempt builds one, and parsing a URL
// costs ~5,000 instructions, so the last few of each thread are remembered.
QUrl apiUrl(const QString &baseUrl, QStringView versionPath, QStringView path);

} // namespace sb
