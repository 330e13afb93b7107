#include "settings/SettingsPage.h"

#include "ConsoleStyle.h"
#include "ThemeManager.h"
#include "TrayNotifier.h"
#include "attach/UnavailableNotice.h"
#include "engine/EngineHost.h"
#include "control/Gateway.h"
#include "settings/ConfigFileBox.h"
#include "settings/KeyStorageBox.h"
#include "settings/SettingRow.h"
#include "settings/TlsFilesEditor.h"
#include "settings/TokenEditor.h"
#include "store/ConfigRepository.h"
#include "store/ConfigStore.h"
#include "store/HistoryWriter.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace sb {

namespace {

const EngineConfig &defaults()
{
    static const EngineConfig config;
    return config;
}

qint64 rounded(double value, int decimals)
{
    return std::llround(value * std::pow(10.0, decimals));
}

bool sameShown(const SettingsField &field, double a, double b)
{
    return rounded(a, field.decimals) == rounded(b, field.decimals);
}

QString halfOpenModeName(HalfOpenMode mode)
{
    return mode == HalfOpenMode::TrafficShare ? QStringLiteral("traffic_share") : QStringLiteral("trial_calls");
}

QString errorColour()
{
    return stateColor(ChannelState::Open).lighter(115).name();
}

const QString kListenHost = QString::fromLatin1(SettingsKey::ListenHost);
const QString kLocalToken = QString::fromLatin1(SettingsKey::LocalToken);
const QString kTls = QString::fromLatin1(SettingsKey::Tls);
const QString kPreset = QString::fromLatin1(SettingsKey::BreakerPreset);
const QString kHalfOpenMode = QString::fromLatin1(SettingsKey::HalfOpenMode);
const QString kPanicMode = QString::fromLatin1(SettingsKey::PanicMode);
const QString kContinueStreams = QString::fromLatin1(SettingsKey::ContinueStreams);
const QString kRetention = QString::fromLatin1(SettingsKey::RetentionDays);
const QString kTheme = QString::fromLatin1(SettingsKey::Theme);
const QString kMute = QString::fromLatin1(SettingsKey::MuteNotifications);

} // namespace

SettingsPage::SettingsPage(QWidget *parent) : QWidget(parent)
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(24, 16, 24, 12);
    outer->setSpacing(8);

    auto *header = new QHBoxLayout;
    auto *title = new QLabel(tr("Settings"), this);
    QFont font = title->font();
    font.setPointSizeF(font.pointSizeF() * 1.6);
    font.setBold(true);
    title->setFont(font);
    header->addWidget(title);
    header->addSpacing(16);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("status"));
    m_status->setWordWrap(true);
    header->addWidget(m_status, 1);
    m_revert = new QPushButton(tr("Revert"), this);
    m_revert->setObjectName(QStringLiteral("revert"));
    m_revert->setToolTip(tr("Drop the unsaved changes and show what is stored"));
    m_save = new QPushButton(tr("Save"), this);
    m_save->setObjectName(QStringLiteral("save"));
    m_save->setDefault(true);
    header->addWidget(m_revert);
    header->addWidget(m_save);
    outer->addLayout(header);

    m_generalProblems = new QLabel(this);
    m_generalProblems->setObjectName(QStringLiteral("generalProblems"));
    m_generalProblems->setWordWrap(true);
    m_generalProblems->setStyleSheet(QStringLiteral("color: %1;").arg(errorColour()));
    m_generalProblems->hide();
    outer->addWidget(m_generalProblems);

    auto *scroll = new QScrollArea(this);
    m_scroll = scroll;
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // columns shrink; rows never hide off to the right
    scroll->setFrameShape(QFrame::NoFrame);
    auto *content = new QWidget(scroll);
    // One column: two side by side needed more width than a 1400-pixel window leaves beside the
    // sidebar, and the defaults on the right were cut off. Capped so rows stay readable when wide.
    auto *columns = new QHBoxLayout(content);
    columns->setContentsMargins(0, 0, 8, 0);
    auto *groups = new QVBoxLayout;
    m_engineNotice = new UnavailableNotice(content);
    m_engineNotice->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum); // its height, no more
    m_engineNotice->layout()->setContentsMargins(0, 8, 0, 12); // flush with the group titles below
    m_engineNotice->hide();
    connect(m_engineNotice, &UnavailableNotice::detachRequested, this, &SettingsPage::detachRequested);
    groups->addWidget(m_engineNotice);
    m_fileBox = new ConfigFileBox(content);
    groups->addWidget(m_fileBox);
    m_engineGroups << m_fileBox; // the embedded engine's configuration, like the groups below
    m_keyStorage = new KeyStorageBox(content);
    groups->addWidget(m_keyStorage);
    m_engineGroups << m_keyStorage;
    for (SettingsGroup g : {SettingsGroup::Proxy, SettingsGroup::HealthScore, SettingsGroup::CircuitBreaker,
                            SettingsGroup::PoolEjection, SettingsGroup::HeartbeatProbe, SettingsGroup::RetryBudget,
                            SettingsGroup::History, SettingsGroup::Appearance}) {
        QWidget *box = buildGroup(g);
        groups->addWidget(box);
        // Appearance is the console's own (QSettings on this computer); every other group, the
        // history retention included, configures the embedded engine and its database.
        if (g != SettingsGroup::Appearance)
            m_engineGroups << box;
    }
    groups->addStretch(1);
    // Every group's editors start at one x: each form sized its label column alone, so the editors
    // of consecutive groups were out of line.
    int labelWidth = 0;
    for (const QLabel *label : std::as_const(m_rowLabels))
        labelWidth = std::max(labelWidth, label->sizeHint().width());
    for (QLabel *label : std::as_const(m_rowLabels))
        label->setMinimumWidth(labelWidth);
    auto *column = new QWidget(content);
    column->setLayout(groups);
    column->setMaximumWidth(900);
    columns->addWidget(column, 1);
    columns->addStretch(0);
    scroll->setWidget(content);
    outer->addWidget(scroll, 1);

    connect(m_save, &QPushButton::clicked, this, &SettingsPage::save);
    connect(m_revert, &QPushButton::clicked, this, &SettingsPage::revert);

    setListenAppliesLive(true); // Gateway::applyConfig rebinds (new address first, old one drains)
    load(std::make_shared<const EngineConfig>(), ConfigRepository::DefaultRetentionDays);
    m_status->setText(tr("No configuration is open; nothing can be saved."));
}

QWidget *SettingsPage::buildGroup(SettingsGroup group)
{
    // "Retry & budget": a group box title treats & as a mnemonic marker.
    auto *box = new QGroupBox(groupTitle(group).replace(QLatin1Char('&'), QStringLiteral("&&")), this);
    box->setObjectName(QStringLiteral("group%1").arg(static_cast<int>(group)));
    auto *column = new QVBoxLayout(box);
    column->setSpacing(6);

    auto *top = new QHBoxLayout;
    auto *note = new QLabel(box);
    note->setWordWrap(true);
    note->setStyleSheet(QStringLiteral("color: palette(placeholder-text);"));
    switch (group) {
    case SettingsGroup::Proxy: m_proxyNote = note; break;
    case SettingsGroup::History: note->setText(tr("Older requests, events and health samples are deleted.")); break;
    case SettingsGroup::Appearance: note->setText(tr("Applies at once, for this user on this computer.")); break;
    default: note->setText(tr("Saved changes apply at once; requests in flight finish on the old values.")); break;
    }
    top->addWidget(note, 1);
    auto *reset = new QPushButton(tr("Reset group"), box);
    reset->setObjectName(QStringLiteral("resetGroup"));
    reset->setToolTip(tr("Put every field of %1 back to its default (Save to keep it)").arg(groupTitle(group)));
    connect(reset, &QPushButton::clicked, this, [this, group] { resetGroup(group); });
    m_groupResets.insert(static_cast<int>(group), reset);
    top->addWidget(reset, 0, Qt::AlignTop);
    column->addLayout(top);

    auto *form = new QFormLayout;
    form->setLabelAlignment(Qt::AlignLeft);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setVerticalSpacing(6);
    column->addLayout(form);

    const auto numbersOf = [&](auto pick) {
        for (const SettingsField &f : settingsFields())
            if (f.group == group && pick(f))
                buildNumber(form, f);
    };
    const auto all = [](const SettingsField &) { return true; };

    switch (group) {
    case SettingsGroup::Proxy: {
        m_listenHost = new QLineEdit;
        m_listenHost->setObjectName(QStringLiteral("listenHost"));
        m_listenHost->setPlaceholderText(QStringLiteral("127.0.0.1"));
        connect(m_listenHost, &QLineEdit::textChanged, this, &SettingsPage::onEdited);
        addRow(form, group, kListenHost, tr("Listen address"), m_listenHost, QString(), defaults().proxy.listenHost,
               tr("The IP address the proxy listens on. 127.0.0.1 serves this computer only; any other address "
                  "needs a local token. --listen HOST:PORT overrides it for one run."));
        numbersOf([](const SettingsField &f) { return f.key == u"proxy.listen_port"; });
        m_token = new TokenEditor;
        connect(m_token, &TokenEditor::tokenEdited, this, &SettingsPage::onEdited);
        addRow(form, group, kLocalToken, tr("Local token"), m_token, QString(), tr("none"),
               tr("Clients send it as \"Authorization: Bearer <token>\". Required for any address but loopback."));
        m_tls = new TlsFilesEditor;
        connect(m_tls, &TlsFilesEditor::filesEdited, this, &SettingsPage::onEdited);
        addRow(form, group, kTls, tr("HTTPS"), m_tls, QString(), tr("off (plain HTTP)"),
               tr("Serve the proxy port over TLS, so the local token, prompts and answers never cross a network in "
                  "clear. A renewed certificate at the same paths is read again by a reload and serves new "
                  "connections. --tls-cert and --tls-key override it for one run."));
        numbersOf([](const SettingsField &f) { return f.key != u"proxy.listen_port"; });
        break;
    }
    case SettingsGroup::CircuitBreaker: {
        m_preset = new QComboBox;
        m_preset->setObjectName(QStringLiteral("breakerPreset"));
        // The preset descriptions are long; the combo must not widen its column past the page, and
        // at 40 characters the longest (launch-day) still shows whole in the 900-pixel column.
        m_preset->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        m_preset->setMinimumContentsLength(40);
        m_preset->addItem(tr("relay — 5 failures in a row, open 60 s, 3 trials"), QStringLiteral("relay"));
        m_preset->addItem(tr("launch-day — over 20 % in 5 s, open 2 min, 5 % share"), QStringLiteral("launch-day"));
        m_preset->addItem(tr("custom"), QStringLiteral("custom"));
        connect(m_preset, &QComboBox::activated, this, &SettingsPage::onPresetChosen);
        addRow(form, group, kPreset, tr("Preset"), m_preset, QString(), QStringLiteral("relay"),
               tr("Fills the fields below with a tested set of values; any edit makes it \"custom\"."));
        numbersOf([](const SettingsField &f) { return !f.key.startsWith(u"breaker.half_open") && f.key != u"breaker.successes_to_close"; });
        m_halfOpenMode = new QComboBox;
        m_halfOpenMode->setObjectName(QStringLiteral("halfOpenMode"));
        m_halfOpenMode->addItem(tr("trial calls"), QStringLiteral("trial_calls"));
        m_halfOpenMode->addItem(tr("traffic share"), QStringLiteral("traffic_share"));
        connect(m_halfOpenMode, &QComboBox::currentIndexChanged, this, &SettingsPage::onEdited);
        addRow(form, group, kHalfOpenMode, tr("Half-open mode"), m_halfOpenMode, QString(), tr("trial calls"),
               tr("How a half-open circuit tests recovery: a few trial calls, or a small share of the traffic."));
        numbersOf([](const SettingsField &f) { return f.key.startsWith(u"breaker.half_open") || f.key == u"breaker.successes_to_close"; });
        break;
    }
    case SettingsGroup::PoolEjection:
        numbersOf(all);
        m_panicMode = new QCheckBox(tr("Use the least bad channel when all are out"));
        m_panicMode->setObjectName(QStringLiteral("panicMode"));
        connect(m_panicMode, &QCheckBox::toggled, this, &SettingsPage::onEdited);
        addRow(form, group, kPanicMode, tr("Panic mode"), m_panicMode, QString(), defaults().pool.panicMode ? tr("on") : tr("off"),
               tr("When every channel of a route is ejected or open, still send to the best of them instead of failing."));
        break;
    case SettingsGroup::RetryBudget:
        numbersOf(all);
        m_continueStreams = new QCheckBox(tr("Continue a stream that breaks mid-answer on another channel"));
        m_continueStreams->setObjectName(QStringLiteral("continueStreams"));
        connect(m_continueStreams, &QCheckBox::toggled, this, &SettingsPage::onEdited);
        addRow(form, group, kContinueStreams, tr("Stream continuation"), m_continueStreams, QString(),
               defaults().retry.continueStreams ? tr("on") : tr("off"),
               tr("When a provider fails after part of a streamed answer reached the caller, the next channel is asked for "
                  "the rest and it is spliced in: one answer, nothing repeated. A tool call is never spliced; a route can "
                  "turn this off for itself. Off: the stream ends with an error event."));
        break;
    case SettingsGroup::History:
        m_retention = new QSpinBox;
        m_retention->setObjectName(QStringLiteral("retentionDays"));
        m_retention->setRange(1, 3650);
        m_retention->setMinimumWidth(110);
        m_retention->setAlignment(Qt::AlignRight);
        connect(m_retention, &QSpinBox::valueChanged, this, &SettingsPage::onEdited);
        addRow(form, group, kRetention, tr("Keep history for"), m_retention, tr("days"),
               tr("%1 days").arg(ConfigRepository::DefaultRetentionDays), tr("Requests, events and health samples older than this are deleted."));
        break;
    case SettingsGroup::Appearance:
        m_theme = new QComboBox;
        m_theme->setObjectName(QStringLiteral("theme"));
        m_theme->addItem(tr("system"), QStringLiteral("system"));
        m_theme->addItem(tr("light"), QStringLiteral("light"));
        m_theme->addItem(tr("dark"), QStringLiteral("dark"));
        m_theme->setEnabled(false); // until a ThemeManager is set
        connect(m_theme, &QComboBox::activated, this, [this](int index) {
            if (m_themes)
                m_themes->setTheme(ThemeManager::themeFromName(m_theme->itemData(index).toString()));
            updateResetButtons();
        });
        addRow(form, group, kTheme, tr("Theme"), m_theme, QString(), tr("system"),
               tr("System follows the desktop's palette at start-up; light and dark are the console's own."));
        m_mute = new QCheckBox(tr("Mute tray notifications"));
        m_mute->setObjectName(QStringLiteral("muteNotifications"));
        m_mute->setEnabled(false); // until a TrayNotifier is set
        connect(m_mute, &QCheckBox::toggled, this, [this](bool muted) {
            if (m_tray)
                m_tray->setMuted(muted);
            updateResetButtons();
        });
        addRow(form, group, kMute, tr("Notifications"), m_mute, QString(), tr("off"),
               tr("The tray announces a circuit that opens or a channel that is ejected, at most once a minute per channel."));
        break;
    default:
        numbersOf(all);
        break;
    }
    return box;
}

void SettingsPage::addRow(QFormLayout *form, SettingsGroup group, const QString &key, const QString &label, QWidget *editor,
                          const QString &unit, const QString &defaultText, const QString &help)
{
    auto *row = new SettingRow(editor, unit, defaultText);
    row->setObjectName(key);
    auto *name = new QLabel(label);
    m_rowLabels << name;
    name->setToolTip(help);
    editor->setToolTip(help);
    form->addRow(name, row);
    // The label sits beside the editor, not beside the error sentence that may appear under it.
    form->setAlignment(name, Qt::AlignLeft | Qt::AlignTop);
    name->setContentsMargins(0, 4, 0, 0);
    m_rows.insert(key, row);
    m_groupKeys[static_cast<int>(group)] << key;
    connect(row, &SettingRow::resetRequested, this, [this, key] { resetField(key); });
}

void SettingsPage::buildNumber(QFormLayout *form, const SettingsField &field)
{
    auto *spin = new QDoubleSpinBox;
    spin->setObjectName(field.key);
    spin->setDecimals(field.decimals);
    spin->setRange(field.minimum, field.maximum);
    spin->setGroupSeparatorShown(!field.plain);
    spin->setAlignment(Qt::AlignRight);
    spin->setMinimumWidth(110);
    spin->setAccelerated(true);
    spin->setFocusPolicy(Qt::StrongFocus);
    spin->installEventFilter(this);
    connect(spin, &QDoubleSpinBox::valueChanged, this, &SettingsPage::onEdited);
    m_numbers.insert(field.key, spin);
    addRow(form, field.group, field.key, field.label, spin, field.unit, field.format(field.defaultValue()), field.help);
}

void SettingsPage::setHost(EngineHost *host)
{
    setHistoryWriter(host ? host->historyWriter() : nullptr);
    setConfigStore(host ? host->configStore() : nullptr);
    m_keyStorage->setHost(host);
}

void SettingsPage::setConfigStore(ConfigStore *store)
{
    if (m_store)
        disconnect(m_store, nullptr, this, nullptr);
    m_store = store;
    if (!store || !store->current()) {
        // --config runs from a file the console does not write back to.
        load(std::make_shared<const EngineConfig>(), ConfigRepository::DefaultRetentionDays);
        m_status->setText(store ? tr("This run's configuration came from a file (--config); edit the file instead.")
                                : tr("No configuration is open; nothing can be saved."));
        m_fileBox->setConfigStore(nullptr, store ? tr("This run's configuration came from a file (--config): export and "
                                                      "import work on the database, which this run does not use.")
                                                 : QString());
        return;
    }
    m_fileBox->setConfigStore(store);
    connect(store, &ConfigStore::configChanged, this, &SettingsPage::onConfigChanged);
    load(store->current(), store->repository().historyRetentionDays());
    m_status->clear();
}

void SettingsPage::setHistoryWriter(HistoryWriter *writer)
{
    m_history = writer;
}

void SettingsPage::setThemeManager(ThemeManager *themes)
{
    if (m_themes)
        disconnect(m_themes, nullptr, this, nullptr);
    m_themes = themes;
    m_theme->setEnabled(themes != nullptr);
    if (!themes)
        return;
    const auto show = [this](ThemeManager::Theme theme) {
        const QSignalBlocker block(m_theme);
        m_theme->setCurrentIndex(m_theme->findData(ThemeManager::themeName(theme)));
        updateResetButtons();
    };
    show(themes->theme());
    connect(themes, &ThemeManager::themeChanged, this, show);
}

void SettingsPage::setTrayNotifier(TrayNotifier *tray)
{
    if (m_tray)
        disconnect(m_tray, nullptr, this, nullptr);
    m_tray = tray;
    m_mute->setEnabled(tray != nullptr);
    if (!tray)
        return;
    const auto show = [this](bool muted) {
        const QSignalBlocker block(m_mute);
        m_mute->setChecked(muted);
        updateResetButtons();
    };
    show(tray->isMuted());
    connect(tray, &TrayNotifier::mutedChanged, this, show);
}

void SettingsPage::setListenAppliesLive(bool live)
{
    m_listenAppliesLive = live;
    m_proxyNote->setText(live ? tr("Address, port and token apply at once (the new address opens before the old one closes); "
                                   "the limits apply when the proxy next opens its port.")
                              : tr("Saved changes apply when Switchboard next starts."));
}

void SettingsPage::setAttachedInstance(const QString &address)
{
    m_attachedTo = address;
    const bool engine = address.isEmpty();
    for (QWidget *group : std::as_const(m_engineGroups))
        group->setVisible(engine);
    for (QWidget *widget : std::initializer_list<QWidget *>{m_status, m_revert, m_save})
        widget->setVisible(engine);
    m_engineNotice->setVisible(!engine);
    if (engine) {
        revalidate(); // shows the draft's problems again, if it has any
        return;
    }
    m_generalProblems->hide();
    m_engineNotice->showReason(tr("Engine settings belong to %1").arg(address),
                               tr("Its proxy address and token, thresholds and history retention are kept on its own machine "
                                  "and change there. Go back to the embedded engine to change this computer's engine; "
                                  "the console's own preferences below apply either way."));
}

void SettingsPage::load(const EngineConfigPtr &config, int retentionDays)
{
    m_loading = true;
    m_base = config;
    m_retentionBase = retentionDays;
    for (const SettingsField &f : settingsFields())
        m_numbers.value(f.key)->setValue(f.get(*config));
    m_listenHost->setText(config->proxy.listenHost);
    m_token->setToken(config->proxy.localToken);
    m_tls->setFiles(config->proxy.tlsCertFile, config->proxy.tlsKeyFile);
    m_halfOpenMode->setCurrentIndex(m_halfOpenMode->findData(halfOpenModeName(config->breaker.halfOpenMode)));
    m_panicMode->setChecked(config->pool.panicMode);
    m_continueStreams->setChecked(config->retry.continueStreams);
    m_retention->setValue(retentionDays);
    m_loading = false;
    syncPresetBox();
    revalidate();
}

void SettingsPage::onConfigChanged(const EngineConfigPtr &config)
{
    if (m_saving || !config)
        return;
    // Someone else saved (a provider dialog, a reload): show it unless the user is mid-edit; the
    // draft only carries this page's fields, so a later Save does not undo their change either way.
    if (!isDirty())
        load(config, m_store ? m_store->repository().historyRetentionDays() : m_retentionBase);
    else
        revalidate();
}

void SettingsPage::onEdited()
{
    if (m_loading)
        return;
    syncPresetBox();
    m_status->clear();
    revalidate();
}

void SettingsPage::onPresetChosen(int index)
{
    BreakerConfig preset;
    if (!BreakerConfig::fromPreset(m_preset->itemData(index).toString(), &preset)) {
        syncPresetBox(); // "custom" is what edits lead to, not something to choose
        return;
    }
    EngineConfig source;
    source.breaker = preset;
    m_loading = true;
    for (const SettingsField &f : settingsFields())
        if (f.group == SettingsGroup::CircuitBreaker)
            m_numbers.value(f.key)->setValue(f.get(source));
    m_halfOpenMode->setCurrentIndex(m_halfOpenMode->findData(halfOpenModeName(preset.halfOpenMode)));
    m_loading = false;
    onEdited();
}

QString SettingsPage::matchingPreset() const
{
    for (const QString &name : {QStringLiteral("relay"), QStringLiteral("launch-day")}) {
        EngineConfig candidate;
        BreakerConfig::fromPreset(name, &candidate.breaker);
        bool same = m_halfOpenMode->currentData().toString() == halfOpenModeName(candidate.breaker.halfOpenMode);
        for (const SettingsField &f : settingsFields())
            if (same && f.group == SettingsGroup::CircuitBreaker)
                same = sameShown(f, m_numbers.value(f.key)->value(), f.get(candidate));
        if (same)
            return name;
    }
    return QStringLiteral("custom");
}

void SettingsPage::syncPresetBox()
{
    const QSignalBlocker block(m_preset);
    m_preset->setCurrentIndex(m_preset->findData(matchingPreset()));
}

QStringList SettingsPage::changedKeys() const
{
    QStringList keys;
    if (!m_base)
        return keys;
    const EngineConfig &base = *m_base;
    for (const SettingsField &f : settingsFields())
        if (!sameShown(f, m_numbers.value(f.key)->value(), f.get(base)))
            keys << f.key;
    if (m_listenHost->text().trimmed() != base.proxy.listenHost)
        keys << kListenHost;
    if (m_token->token() != base.proxy.localToken)
        keys << kLocalToken;
    if (m_tls->certificateFile() != base.proxy.tlsCertFile.trimmed() || m_tls->keyFile() != base.proxy.tlsKeyFile.trimmed())
        keys << kTls;
    if (m_halfOpenMode->currentData().toString() != halfOpenModeName(base.breaker.halfOpenMode))
        keys << kHalfOpenMode;
    if (m_panicMode->isChecked() != base.pool.panicMode)
        keys << kPanicMode;
    if (m_continueStreams->isChecked() != base.retry.continueStreams)
        keys << kContinueStreams;
    if (m_retention->value() != m_retentionBase)
        keys << kRetention;
    return keys;
}

bool SettingsPage::isDirty() const
{
    return !changedKeys().isEmpty();
}

void SettingsPage::applyDraftTo(EngineConfig *config) const
{
    // Only what the user changed is written, so a stored value this page cannot show exactly (a
    // body limit that is not whole KiB) survives a save of other fields.
    bool breakerChanged = false;
    for (const QString &key : changedKeys()) {
        if (const SettingsField *f = findSettingsField(key)) {
            f->set(*config, m_numbers.value(key)->value());
            breakerChanged = breakerChanged || f->group == SettingsGroup::CircuitBreaker;
        } else if (key == kListenHost) {
            config->proxy.listenHost = m_listenHost->text().trimmed();
        } else if (key == kLocalToken) {
            config->proxy.localToken = m_token->token();
        } else if (key == kTls) {
            config->proxy.tlsCertFile = m_tls->certificateFile();
            config->proxy.tlsKeyFile = m_tls->keyFile();
        } else if (key == kHalfOpenMode) {
            config->breaker.halfOpenMode = m_halfOpenMode->currentData().toString() == u"traffic_share" ? HalfOpenMode::TrafficShare
                                                                                                         : HalfOpenMode::TrialCalls;
            breakerChanged = true;
        } else if (key == kPanicMode) {
            config->pool.panicMode = m_panicMode->isChecked();
        } else if (key == kContinueStreams) {
            config->retry.continueStreams = m_continueStreams->isChecked();
        }
    }
    if (breakerChanged)
        config->breaker.preset = matchingPreset();
}

EngineConfig SettingsPage::draft() const
{
    EngineConfigPtr base = m_store && m_store->current() ? m_store->current() : m_base;
    EngineConfig config = base ? *base : EngineConfig();
    applyDraftTo(&config);
    return config;
}

QStringList SettingsPage::problems() const
{
    return m_problems;
}

void SettingsPage::revalidate()
{
    const EngineConfig config = draft();
    QStringList problems = config.validate();
    QString listenError;
    if (!listenAddressAllowed(config.proxy, &listenError))
        problems << listenError;
    // The files are this computer's: an attached instance's are not read from here.
    if (m_attachedTo.isEmpty() && !m_tls->problem().isEmpty() && !problems.contains(m_tls->problem()))
        problems << m_tls->problem();
    m_problems = problems;
    placeProblems(problems);
    updateResetButtons();
    const bool dirty = isDirty();
    const bool storable = m_store && m_store->current();
    m_save->setEnabled(storable && dirty && problems.isEmpty());
    m_revert->setEnabled(dirty);
    if (storable && dirty)
        m_status->setText(problems.isEmpty() ? tr("Unsaved changes.") : tr("Fix the fields marked in red to save."));
}

void SettingsPage::placeProblems(const QStringList &problems)
{
    QHash<QString, QStringList> perKey;
    QStringList general;
    const QStringList changed = changedKeys();
    for (const QString &problem : problems) {
        QStringList keys;
        if (problem.contains(QLatin1String("listen on")) || problem.contains(QLatin1String("listen address")))
            keys << kListenHost;
        else if (problem.contains(QLatin1String("proxy.tls_")) || problem.contains(QLatin1String("TLS ")) || problem == m_tls->problem())
            keys << kTls;
        else
            keys = fieldsConcernedBy(problem);
        if (keys.isEmpty()) {
            general << problem;
            continue;
        }
        // A sentence about several fields goes under the ones the user changed; if none, the first.
        QStringList targets;
        for (const QString &key : keys)
            if (changed.contains(key))
                targets << key;
        if (targets.isEmpty())
            targets << keys.first();
        for (const QString &key : targets)
            perKey[key] << problem;
    }
    for (auto it = m_rows.cbegin(); it != m_rows.cend(); ++it)
        it.value()->setError(perKey.value(it.key()).join(QLatin1Char(' ')));
    m_generalProblems->setText(general.join(QLatin1Char('\n')));
    m_generalProblems->setVisible(!general.isEmpty() && m_attachedTo.isEmpty());
}

void SettingsPage::updateResetButtons()
{
    const EngineConfig &d = defaults();
    for (const SettingsField &f : settingsFields())
        m_rows.value(f.key)->setDefaulted(sameShown(f, m_numbers.value(f.key)->value(), f.defaultValue()));
    m_rows.value(kListenHost)->setDefaulted(m_listenHost->text().trimmed() == d.proxy.listenHost);
    m_rows.value(kLocalToken)->setDefaulted(m_token->token().isEmpty());
    m_rows.value(kTls)->setDefaulted(m_tls->certificateFile().isEmpty() && m_tls->keyFile().isEmpty());
    m_rows.value(kPreset)->setDefaulted(m_preset->currentData().toString() == u"relay");
    m_rows.value(kHalfOpenMode)->setDefaulted(m_halfOpenMode->currentData().toString() == halfOpenModeName(d.breaker.halfOpenMode));
    m_rows.value(kPanicMode)->setDefaulted(m_panicMode->isChecked() == d.pool.panicMode);
    m_rows.value(kContinueStreams)->setDefaulted(m_continueStreams->isChecked() == d.retry.continueStreams);
    m_rows.value(kRetention)->setDefaulted(m_retention->value() == ConfigRepository::DefaultRetentionDays);
    m_rows.value(kTheme)->setDefaulted(!m_theme->isEnabled() || m_theme->currentData().toString() == u"system");
    m_rows.value(kMute)->setDefaulted(!m_mute->isEnabled() || !m_mute->isChecked());
}

void SettingsPage::resetField(const QString &key)
{
    const EngineConfig &d = defaults();
    if (const SettingsField *f = findSettingsField(key)) {
        m_numbers.value(key)->setValue(f->defaultValue());
    } else if (key == kListenHost) {
        m_listenHost->setText(d.proxy.listenHost);
    } else if (key == kLocalToken) {
        m_token->setToken(QString());
        onEdited();
    } else if (key == kTls) {
        m_tls->setFiles(QString(), QString());
        onEdited();
    } else if (key == kPreset) {
        onPresetChosen(m_preset->findData(d.breaker.preset));
    } else if (key == kHalfOpenMode) {
        m_halfOpenMode->setCurrentIndex(m_halfOpenMode->findData(halfOpenModeName(d.breaker.halfOpenMode)));
    } else if (key == kPanicMode) {
        m_panicMode->setChecked(d.pool.panicMode);
    } else if (key == kContinueStreams) {
        m_continueStreams->setChecked(d.retry.continueStreams);
    } else if (key == kRetention) {
        m_retention->setValue(ConfigRepository::DefaultRetentionDays);
    } else if (key == kTheme) {
        if (m_themes)
            m_themes->setTheme(ThemeManager::Theme::System);
    } else if (key == kMute) {
        m_mute->setChecked(false);
    }
}

void SettingsPage::resetGroup(SettingsGroup group)
{
    for (const QString &key : m_groupKeys.value(static_cast<int>(group)))
        resetField(key);
}

void SettingsPage::revert()
{
    if (m_store && m_store->current())
        load(m_store->current(), m_store->repository().historyRetentionDays());
    else if (m_base)
        load(m_base, m_retentionBase);
    m_status->setText(tr("Reverted to the stored settings."));
}

bool SettingsPage::save()
{
    // While attached the engine groups are hidden: nothing may be saved that the user cannot see.
    if (!m_attachedTo.isEmpty() || !m_store || !m_store->current() || !isDirty() || !m_problems.isEmpty())
        return false;
    const QStringList changed = changedKeys();
    const bool engineChanged = changed.size() > (changed.contains(kRetention) ? 1 : 0);
    bool proxyChanged = false;
    for (const QString &key : changed)
        proxyChanged = proxyChanged || key.startsWith(u"proxy.");

    m_saving = true;
    if (engineChanged) {
        const ConfigRepository::SaveResult result = m_store->save(draft(), tr("settings edited in the console"));
        if (!result.ok()) {
            m_saving = false;
            m_problems = result.errors;
            placeProblems(result.errors);
            m_save->setEnabled(false);
            m_status->setText(tr("Not saved: fix the fields marked in red."));
            return false;
        }
    }
    if (changed.contains(kRetention)) {
        QString error;
        if (!m_store->repository().setHistoryRetentionDays(m_retention->value(), &error)) {
            m_saving = false;
            m_status->setText(tr("History retention not saved: %1").arg(error));
            return false;
        }
        if (m_history)
            m_history->setRetentionDays(m_retention->value());
    }
    m_saving = false;
    load(m_store->current(), m_store->repository().historyRetentionDays());

    QString status = tr("Saved at %1.").arg(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss")));
    if (engineChanged)
        status += tr(" Thresholds apply at once.");
    if (proxyChanged)
        status += m_listenAppliesLive ? tr(" Proxy address, port and token apply at once.")
                                      : tr(" Proxy settings apply when Switchboard next starts.");
    m_status->setText(status);
    emit saved();
    return true;
}

bool SettingsPage::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Wheel && qobject_cast<QDoubleSpinBox *>(watched) && !static_cast<QWidget *>(watched)->hasFocus()) {
        QCoreApplication::sendEvent(m_scroll->verticalScrollBar(), event);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

QString SettingsPage::statusText() const
{
    return m_status->text();
}

QString SettingsPage::generalProblemsText() const
{
    return m_generalProblems->text();
}

} // namespace sb
