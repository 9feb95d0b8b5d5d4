/**
 * The dashboard in a real browser: Debian's chromium driven by playwright-core opens the
 * jobs list, a running job's graph, signals its hook from the page and sees the hook's
 * digit change (5 paused → 4 released) live, opens the activity panel, decodes a reverted
 * saga's digits (the legend, reverted told from skipped, the failed activity marked),
 * offers Resume only once a job is suspended, reads a code-first
 * job's steps in order on its timeline (a retried task's failed attempt and backoff too)
 * with its engine details folded, the workflows,
 * queues, schedules (pausing and resuming one) and dead-letter pages and a code-first-free jobs
 * filter — saving screenshots (see SHOTS) and failing on any console error on any page.
 *
 * Without /usr/bin/chromium the test is skipped with a message; with CI=true it fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard } from '../../src/server/dashboard.js';
import { CHROMIUM, haveChromium } from '../support/chromium.js';
import { waitFor } from '../support/wait-for.js';
import { REPO_ROOT } from '../support/weft-cli.js';
import { type DashboardFixture, dashboardFixture } from './dashboard-fixture.js';

/** What the page's `location` is, as far as these tests read it. */
interface Location {
  hash: string;
}

/**
 * Where the screenshots go: `.weft/screenshots/` (ignored by git), so a test run leaves
 * the tree clean; `WEFT_SCREENSHOTS=docs` refreshes the ones docs/ and the README show.
 */
const SHOTS =
  process.env.WEFT_SCREENSHOTS === 'docs'
    ? join(REPO_ROOT, 'docs', 'screenshots')
    : join(REPO_ROOT, '.weft', 'screenshots');

describe.skipIf(!haveChromium)('the dashboard in chromium', () => {
  let fixture: DashboardFixture;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    fixture = await dashboardFixture();
    browser = await chromium.launch({ executablePath: CHROMIUM });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(`${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${error.message}`));
  });
  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  /** Goes to a page of the dashboard and checks, on leaving, that it logged no error. */
  const visit = async (hash: string) => {
    await page.goto(`${fixture.dashboard.url}/${hash}`);
  };
  const noConsoleErrors = () => expect(consoleErrors).toEqual([]);

  it('lists jobs live: a job started after the page opened appears without a reload', async () => {
    const first = await fixture.client.start('order', { sku: 'tea' });
    await visit('#/jobs');
    await page.waitForSelector(`tr[data-job="${first.id}"]`);
    const second = await fixture.client.start('order', { sku: 'figs' });
    await page.waitForSelector(`tr[data-job="${second.id}"]`, { timeout: 15_000 });
    // Newest first.
    const ids = await page.$$eval('tr[data-job]', (rows) =>
      rows.map((r) => r.getAttribute('data-job')),
    );
    expect(ids.slice(0, 2)).toEqual([second.id, first.id]);
    await page.waitForSelector('button.count[data-state="RUNNING"]');
    await page.screenshot({ path: join(SHOTS, 'jobs.png') });
    noConsoleErrors();
  });

  it("draws a running job's graph, and a signal sent from the page moves the hook's digit", async () => {
    const job = await fixture.client.start('order', { sku: 'plums' });
    await visit(`#/job/${job.id}`);
    // The hook waits: digit 5 (paused), in the graph and in the key strip under it.
    await page.waitForSelector('svg.graph .node[data-activity="approve"][data-digit="5"]', {
      timeout: 20_000,
    });
    expect(await page.textContent('.kcell[data-activity="approve"] .kdigit')).toBe('5');
    const key = await page.getAttribute('[data-key]', 'data-key');
    const digits = await page.$$eval('.kcell', (cells) =>
      cells.map((c) => c.querySelector('.kdigit')?.textContent ?? '').join(''),
    );
    expect(digits).toBe(key);
    await page.click('svg.graph .node[data-activity="approve"]');
    await page.waitForSelector('aside.panel h2:has-text("approve")');
    await page.screenshot({ path: join(SHOTS, 'job-graph.png') });

    await page.click('aside.panel button[data-action="signal"]');
    await page.waitForSelector('dialog#confirm[open]');
    await page.fill('dialog#confirm textarea[name="signal-data"]', '{"by":"ana"}');
    await page.screenshot({ path: join(SHOTS, 'signal-dialog.png') });
    await page.click('#confirm-yes');
    await page.waitForSelector('svg.graph .node[data-activity="approve"][data-digit="4"]', {
      timeout: 20_000,
    });
    await page.waitForSelector('.jobhead .badge.s-success', { timeout: 20_000 });
    expect(await page.textContent('.kcell[data-activity="approve"] .kdigit')).toBe('4');
    await page.click('svg.graph .node[data-activity="charge"]');
    await page.waitForSelector('aside.panel table.sem');
    await page.screenshot({ path: join(SHOTS, 'job-done.png') });
    const done = await fixture.client.result(job.id);
    expect(done.state).toBe('SUCCESS');
    const history = await fixture.client.history(job.id);
    expect(history.some((e) => e.activity === 'approve')).toBe(true);
    noConsoleErrors();
  });

  it('reruns a finished job from an activity, after confirming, and opens the new job', async () => {
    const job = await fixture.client.start('order', { sku: 'pears' });
    await visit(`#/job/${job.id}?activity=ship`);
    await page.waitForSelector('svg.graph .node[data-activity="approve"][data-digit="5"]', {
      timeout: 20_000,
    });
    await fixture.client.signal(job.id, 'approved', null);
    await page.waitForSelector('.jobhead .badge.s-success', { timeout: 20_000 });
    await page.click('aside.panel button[data-action="rerun"]');
    await page.waitForSelector('dialog#confirm[open]');
    await page.click('#confirm-yes');
    await page.waitForFunction(
      (old) => !(globalThis as unknown as { location: Location }).location.hash.includes(old),
      job.id,
    );
    const rerunId = decodeURIComponent(page.url().split('#/job/')[1] ?? '');
    expect(rerunId).not.toBe(job.id);
    await page.waitForSelector('.jobhead .badge.s-success', { timeout: 20_000 });
    // charge was kept (not run again), ship ran again.
    expect((await fixture.client.history(rerunId)).some((e) => e.activity === 'charge')).toBe(
      false,
    );
    expect((await fixture.client.result(rerunId)).state).toBe('SUCCESS');
    noConsoleErrors();
  });

  it('draws a scope nested, a cycle and its threads, and opens the child job in a click', async () => {
    const job = await fixture.client.start('fulfil', null);
    await fixture.client.result(job.id, { wait: true, timeoutMs: 20_000 });
    await visit(`#/job/${job.id}`);
    await page.waitForSelector('.jobhead .badge.s-success');
    // The scope's members are drawn inside its box.
    await page.waitForSelector('svg.graph .scope');
    await page.waitForSelector('svg.graph .node[data-activity="payment.reserve"]');
    const inside = await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): Box | null } })
        .document;
      interface Box {
        getBoundingClientRect(): { left: number; right: number; top: number; bottom: number };
      }
      const scope = doc.querySelector('svg.graph .scope rect')?.getBoundingClientRect();
      const member = doc
        .querySelector('svg.graph .node[data-activity="payment.capture"] rect')
        ?.getBoundingClientRect();
      return Boolean(
        scope &&
          member &&
          member.left >= scope.left &&
          member.right <= scope.right &&
          member.top >= scope.top &&
          member.bottom <= scope.bottom,
      );
    });
    expect(inside).toBe(true);
    // The cycle's re-entry is drawn, and count says it ran in several threads.
    await page.waitForSelector('svg.graph path.edge.cycle');
    expect(await page.textContent('svg.graph .node[data-activity="count"] .node-note')).toMatch(
      /3 threads/,
    );
    await page.screenshot({ path: join(SHOTS, 'scope-cycle-child.png'), fullPage: true });
    // The child job, a click away.
    await page.click('ul.childlist a');
    await page.waitForSelector('svg.graph .node[data-activity="print"]');
    const child = (await fixture.client.status(job.id)).children[0]?.id as string;
    expect(decodeURIComponent(page.url())).toContain(`#/job/${child}`);
    noConsoleErrors();
  });

  it("decodes a graph job's digits: the legend, a reverted activity told from a skipped one (both 3), the failed activity marked in words", async () => {
    const job = await fixture.client.start('saga', { sku: 'tea' });
    expect((await fixture.client.result(job.id, { wait: true, timeoutMs: 20_000 })).state).toBe(
      'REVERTED',
    );
    await visit(`#/job/${job.id}`);
    await page.waitForSelector('svg.graph .node[data-activity="charge"][data-digit="7"]');
    await page.waitForSelector('.jobhead .badge.s-reverted');

    // The legend, open beside the graph: every activity digit 9…3 with its meaning and the
    // activities on it now, and the semaphore's five fields.
    const legend = page.locator('.legendbox details.legend[open]');
    await legend.waitFor();
    expect(await legend.locator('table.legend-digits tbody tr').count()).toBe(7);
    const row = (digit: number) => legend.locator(`tr[data-digit="${digit}"]`);
    expect(await row(7).textContent()).toMatch(/Errored.*FAILURE/);
    expect(await row(7).locator('td[data-here]').textContent()).toBe('charge');
    expect(await row(3).textContent()).toMatch(/Skipped.*skipped.*reverted/);
    expect(await row(3).locator('td[data-here]').textContent()).toBe('reserve, wrap');
    expect(await row(5).textContent()).toMatch(/Paused \(active\)/);
    expect(await legend.locator('.legend-semaphore tbody tr').count()).toBe(5);

    // Both on 3, told apart in words on the graph, the key strip and the panel.
    const node = (id: string) => page.locator(`svg.graph .node[data-activity="${id}"]`);
    expect(await node('reserve').getAttribute('data-digit')).toBe('3');
    expect(await node('wrap').getAttribute('data-digit')).toBe('3');
    expect(await node('reserve').getAttribute('data-state')).toBe('Reverted');
    expect(await node('wrap').getAttribute('data-state')).toBe('Skipped');
    expect(await node('reserve').locator('.node-note').textContent()).toBe('reverted');
    expect(await node('wrap').locator('.node-note').textContent()).toBe('skipped');
    expect(await page.textContent('.kcell[data-activity="reserve"] .kmark')).toBe('rev');
    expect(await page.textContent('.kcell[data-activity="wrap"] .kmark')).toBe('skip');

    // The failed activity: outlined on the graph, marked ✕ on the box and the key, and
    // named with its error in the job's head.
    expect(await node('charge').getAttribute('class')).toMatch(/\bfailed\b/);
    expect(await node('charge').locator('.node-note').textContent()).toBe('✕ failed');
    expect(await page.textContent('.kcell[data-activity="charge"] .kmark')).toBe('✕');
    const failures = page.locator('ul.failures li');
    expect(await failures.count()).toBe(1);
    expect(await failures.first().getAttribute('data-activity')).toBe('charge');
    expect(await failures.first().textContent()).toMatch(
      /✕ Failed activity charge: Errored \(digit 7\): nothing took its failure, so it ended the job in REVERTED — Error: card declined/,
    );
    await page.screenshot({ path: join(SHOTS, 'job-reverted.png'), fullPage: true });
    // A click on it opens it in the panel.
    await failures.first().locator('button').click();
    await page.waitForSelector('aside.panel h2:has-text("charge") .badge.s-errored');
    expect(await page.textContent('aside.panel .failmark')).toContain('✕ failed');
    await node('reserve').click();
    await page.waitForSelector('aside.panel h2:has-text("reserve") .badge.s-reverted');
    // An ended job offers neither Pause nor Resume.
    expect(await page.locator('.jobhead button[data-action="resume"]').count()).toBe(0);
    expect(await page.locator('.jobhead button[data-action="pause"]').count()).toBe(0);
    noConsoleErrors();
  });

  it('offers Resume only on a suspended job: paused from the page, resumed from the page', async () => {
    const job = await fixture.client.start('order', { sku: 'dates' });
    await visit(`#/job/${job.id}`);
    await page.waitForSelector('svg.graph .node[data-activity="approve"][data-digit="5"]', {
      timeout: 20_000,
    });
    const resume = page.locator('.jobhead button[data-action="resume"]');
    const pause = page.locator('.jobhead button[data-action="pause"]');
    await page.waitForSelector('.jobhead .badge.s-running');
    expect(await resume.count()).toBe(0);
    expect(await pause.count()).toBe(1);

    await pause.click();
    await page.waitForSelector('dialog#confirm[open]');
    await page.click('#confirm-yes');
    await page.waitForSelector('.jobhead .badge.s-suspended', { timeout: 20_000 });
    await resume.waitFor();
    expect(await pause.count()).toBe(0);
    expect((await fixture.client.result(job.id)).state).toBe('SUSPENDED');

    await resume.click();
    await page.waitForSelector('dialog#confirm[open]');
    await page.click('#confirm-yes');
    await page.waitForSelector('.jobhead .badge.s-running', { timeout: 20_000 });
    await resume.waitFor({ state: 'detached' });
    expect(await pause.count()).toBe(1);

    await fixture.client.signal(job.id, 'approved', null);
    await page.waitForSelector('.jobhead .badge.s-success', { timeout: 20_000 });
    expect(await resume.count()).toBe(0);
    expect(await pause.count()).toBe(0);
    noConsoleErrors();
  });

  it("leads a code-first job's page with its steps in order on a timeline, the engine details folded", async () => {
    const job = await fixture.client.start('trip', [{ traveller: 'Ana', nights: 2 }]);
    await fixture.client.result(job.id, { wait: true, timeoutMs: 20_000 });
    // `confirm` is dispatched: the job does not wait for it, and it may end after the job.
    await waitFor(
      async () =>
        (await fixture.client.status(job.id)).activities.find((a) => a.id === 'confirm')?.state ===
        'completed',
      'the dispatched confirm to complete',
      { intervalMs: 50 },
    );
    await visit(`#/job/${job.id}`);
    await page.waitForSelector('.jobhead .badge.s-success');
    await page.waitForSelector('section.timeline table.steps tbody tr');
    // The steps, in the order the code met them, as text (a table) under the bars.
    const rows = await page.$$eval('table.steps tbody tr', (trs) =>
      trs.map((tr) => ({
        name: tr.querySelector('td.name')?.textContent ?? '',
        kind: tr.getAttribute('data-kind'),
        status: tr.getAttribute('data-status'),
        duration: tr.querySelector('td.duration')?.textContent ?? '',
        attempts: tr.children[7]?.textContent ?? '',
      })),
    );
    expect(rows.slice(0, 5).map((r) => `${r.kind} ${r.name}`)).toEqual([
      'task book-flight',
      'task book-hotel',
      'properties properties',
      'wait sleep',
      'task charge',
    ]);
    const confirm = rows.find((r) => r.name.startsWith('confirm'));
    expect(confirm).toMatchObject({ name: 'confirm (dispatched)', status: 'SUCCESS' });
    for (const row of rows) {
      expect(row.status, row.name).toBe('SUCCESS');
      expect(row.duration, row.name).toMatch(/^\d+(\.\d+)? (ms|s)$/);
    }
    expect(rows[0]?.attempts).toBe('1');
    // The sleep lasted its 200 ms at least.
    const sleep = rows.find((r) => r.name === 'sleep')?.duration ?? '';
    expect(sleep.endsWith(' s') || Number.parseInt(sleep, 10) >= 200).toBe(true);
    // Every step has its bar (or, for an instant, its mark) on the shared axis.
    const bars = await page.$$eval('.trace .trow:not(.axis)', (trs) =>
      trs.map((tr) => tr.querySelectorAll('.tb').length),
    );
    expect(bars).toHaveLength(rows.length);
    for (const n of bars) expect(n).toBeGreaterThan(0);
    expect(await page.getAttribute('.trace', 'aria-hidden')).toBe('true');

    // The engine's structure is there, folded: closed until asked for.
    expect(await page.getAttribute('details.engine', 'open')).toBeNull();
    expect(await page.isVisible('.codefirst h3:has-text("Branches")')).toBe(false);
    await page.screenshot({ path: join(SHOTS, 'code-first.png'), fullPage: true });
    await page.click('details.engine > summary');
    await page.waitForSelector('.codefirst h3:has-text("Branches")', { state: 'visible' });
    const works = await page.$$eval('.codefirst table', (tables) => tables.length);
    expect(works).toBeGreaterThanOrEqual(3);
    const confirmRow = await page.textContent('.codefirst tr:has(td:text-is("confirm"))');
    expect(confirmRow).toContain('no (dispatched)');
    expect(confirmRow).toContain('completed');
    noConsoleErrors();
  });

  it("reruns a finished code-first job from a step's row, after confirming, and opens the new job", async () => {
    const job = await fixture.client.start('trip', [{ traveller: 'Bo', nights: 1 }]);
    await fixture.client.result(job.id, { wait: true, timeoutMs: 20_000 });
    await visit(`#/job/${job.id}`);
    await page.waitForSelector('.jobhead .badge.s-success');
    const row = 'table.steps tbody tr:has(td.name:text-is("charge"))';
    await page.waitForSelector(`${row} button[data-action="rerun"]`);
    // Only the works of its code offer it: not a change of its properties.
    expect(await page.$('table.steps tr[data-kind="properties"] button')).toBeNull();
    await page.click(`${row} button[data-action="rerun"]`);
    await page.waitForSelector('dialog#confirm[open]');
    expect(await page.textContent('#confirm-title')).toBe(`Rerun ${job.id} from charge?`);
    await page.click('#confirm-yes');
    await page.waitForFunction(
      (old) => !(globalThis as unknown as { location: Location }).location.hash.includes(old),
      job.id,
    );
    const rerunId = decodeURIComponent(page.url().split('#/job/')[1] ?? '');
    expect(rerunId).not.toBe(job.id);
    await page.waitForSelector('.jobhead .badge.s-success', { timeout: 20_000 });
    const done = await fixture.client.result(rerunId);
    expect(done.state).toBe('SUCCESS');
    // The kept steps lead the new job's steps, each naming the job it ran in.
    await page.waitForSelector('table.steps td.name .kept a');
    const kept = await page.$$eval('table.steps tbody tr', (trs) =>
      trs.map((tr) => [
        tr.querySelector('td.name')?.firstChild?.textContent ?? '',
        tr.querySelector('td.name .kept a')?.textContent ?? null,
      ]),
    );
    expect(kept.slice(0, 3)).toEqual([
      ['book-flight', job.id],
      ['book-hotel', job.id],
      ['sleep', job.id],
    ]);
    expect(kept.find(([name]) => name === 'charge')?.[1]).toBeNull();
    // The steps before charge were kept as recorded: no worker ran them for the new job.
    const works = (await fixture.client.status(rerunId)).activities;
    const workOf = (name: string) => works.find((a) => a.id === name)?.work;
    const ran = (await fixture.client.history(rerunId))
      .filter((e) => e.kind === 'attempt')
      .map((e) => e.activity);
    expect(ran).toContain(workOf('charge'));
    expect(workOf('book-flight')).toBeTruthy();
    expect(ran).not.toContain(workOf('book-flight'));
    expect(ran).not.toContain(workOf('book-hotel'));
    noConsoleErrors();
  });

  it("follows a running code-first job's steps live: a retried task's failed attempt, its error and backoff, then a wait until its event", async () => {
    const job = await fixture.client.start('price-check', ['kale']);
    await visit(`#/job/${job.id}`);
    // The wait for the event runs: its row says so, and how long it has run.
    const waiting = page.locator('table.steps tbody tr[data-kind="wait"]');
    await waiting.locator('td:text-is("running")').waitFor({ timeout: 20_000 });
    expect(await waiting.getAttribute('data-status')).toBe('RUNNING');
    expect(await waiting.locator('td.name').textContent()).toBe('wait for approved');
    expect(await waiting.locator('td.duration').textContent()).toMatch(/so far$/);
    expect(await waiting.locator('td').nth(8).textContent()).toMatch(/deadline \+1 min \d+ s$/);
    await fixture.client.sendEvent(job.id, 'approved', { by: 'ana' });
    await page.waitForSelector('.jobhead .badge.s-success');
    await page.waitForSelector('table.steps tbody tr[data-kind="event"]');
    expect(await waiting.getAttribute('data-status')).toBe('SUCCESS');
    const row = page.locator('table.steps tbody tr[data-kind="task"]');
    expect(await row.locator('td').nth(7).textContent()).toBe('2');
    const details = (await row.locator('td').nth(8).textContent()) ?? '';
    expect(details).toContain('attempt 1 failed');
    expect(details).toContain('Error: catalogue busy');
    expect(details).toMatch(/retried after a \d+ ms backoff/);
    expect(details).toContain('attempt 2 completed');
    const bar = page.locator('.trace .trow[data-kind="task"]');
    expect(await bar.locator('.tb.attempt.o-failed').count()).toBe(1);
    expect(await bar.locator('.tb.attempt.o-completed').count()).toBe(1);
    expect(await bar.locator('.tb.backoff').count()).toBe(1);
    noConsoleErrors();
  });

  it('cancels a job from the page after confirming', async () => {
    const job = await fixture.client.start('order', { sku: 'kale' });
    await visit(`#/job/${job.id}`);
    await page.waitForSelector('svg.graph .node[data-activity="approve"][data-digit="5"]', {
      timeout: 20_000,
    });
    await page.click('button[data-action="cancel"]');
    await page.waitForSelector('dialog#confirm[open]');
    await page.click('#confirm-yes');
    await page.waitForSelector('.jobhead .badge.s-failure', { timeout: 20_000 });
    expect((await fixture.client.result(job.id)).state).toBe('FAILURE');
    noConsoleErrors();
  });

  it('asks for the token when the dashboard has one (before any refused request), then shows the jobs', async () => {
    const locked = await startDashboard({
      store: fixture.store,
      client: fixture.client,
      port: 0,
      token: 'open-sesame',
      pollMs: 100,
    });
    try {
      await page.goto(`${locked.url}/#/jobs`);
      await page.waitForSelector('h1:has-text("Token needed")');
      await page.fill('input[name="token"]', 'open-sesame');
      await page.click('button:has-text("Use token")');
      await page.waitForSelector('tr[data-job]');
      // Leave the page (its live stream) before the server goes away.
      await page.goto('about:blank');
    } finally {
      await locked.close();
    }
    noConsoleErrors();
  });

  it('shows the queues: limits, jobs running and waiting, per key', async () => {
    await fixture.client.queues.create({ name: 'one-order', concurrency: 1, keyConcurrency: 1 });
    // An order waits at its hook: the first holds the slot, the other two wait.
    for (const sku of ['tea', 'figs', 'plums']) {
      await fixture.client.start(
        'order',
        { sku },
        { queue: 'one-order', key: sku === 'tea' ? 'ana' : 'bo' },
      );
    }
    await visit('#/queues');
    const row = 'tr[data-queue="one-order"]';
    await page.waitForSelector(`${row}[data-running="1"][data-waiting="2"]`, { timeout: 15_000 });
    const cells = await page.$$eval(`${row} td`, (tds) => tds.map((td) => td.textContent));
    expect(cells.slice(0, 4)).toEqual(['one-order', '1 at once, 1 per key', '1', '2']);
    expect(cells[5]).toBe('bo: 0 / 2ana: 1 / 0');
    await page.screenshot({ path: join(SHOTS, 'queues.png') });
    noConsoleErrors();
  });

  it('shows the schedules with their next runs in their zone, and pauses and resumes one', async () => {
    await fixture.client.schedules.create({
      name: 'nightly-order',
      workflow: 'order',
      cron: '0 3 * * *',
      timezone: 'Europe/Berlin',
      input: { sku: 'tea' },
    });
    await visit('#/schedules');
    const row = 'tr[data-schedule="nightly-order"]';
    await page.waitForSelector(`${row}[data-state="active"]`);
    const runs = await page.$$eval(`${row} ul.plain li`, (items) =>
      items.map((i) => i.textContent),
    );
    expect(runs).toHaveLength(3);
    for (const run of runs) expect(run).toMatch(/03:00:00 (CET|CEST|GMT\+[12])$/);
    await page.screenshot({ path: join(SHOTS, 'schedules.png') });
    await page.click(`${row} button:has-text("Pause")`);
    await page.waitForSelector(`${row}[data-state="paused"]`);
    expect((await fixture.client.schedules.get('nightly-order')).paused).toBe(true);
    await page.click(`${row} button:has-text("Resume")`);
    await page.waitForSelector(`${row}[data-state="active"]`);
    expect((await fixture.client.schedules.get('nightly-order')).paused).toBe(false);
    noConsoleErrors();
  });

  it('shows the workflows page with running jobs per activity, and the dead letters', async () => {
    await visit('#/workflows');
    await page.waitForSelector('section.workflow[data-workflow="order"] svg.graph');
    await page.waitForSelector(
      'section.workflow[data-workflow="order"] .node[data-activity="approve"][data-digit="5"]',
      { timeout: 15_000 },
    );
    await page.screenshot({ path: join(SHOTS, 'workflows.png') });
    await visit('#/dead-letters');
    await page.waitForSelector('h1:has-text("Dead letters")');
    await visit('#/jobs?state=SUCCESS');
    await page.waitForSelector('tr[data-job]');
    noConsoleErrors();
  });
});
