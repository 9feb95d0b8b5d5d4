// The action buttons of a job page: each opens the confirm dialog and runs its request
// on Confirm; a request that starts a new job (a rerun) opens that job.
import { post } from './api.js';
import { confirmAction } from './confirm.js';
import { h } from './dom.js';

/** A button that confirms, then runs `run`; `navigate` opens a job the run started. */
export function actionButton(
  label,
  title,
  run,
  { body = [], danger = false, disabled = false, navigate = () => {} } = {},
) {
  return h(
    `button${danger ? '.danger' : ''}`,
    {
      type: 'button',
      disabled,
      'data-action': label.toLowerCase().split(' ')[0],
      onclick: async () => {
        const done = await confirmAction({ title, body, confirm: label, action: run });
        if (done?.newJob) navigate(`#/job/${encodeURIComponent(done.newJob)}`);
      },
    },
    label,
  );
}

/** The inputs of a signal (graph) or event (code-first) and the request that sends it. */
export function signalForm(jobId, defaultName, kind) {
  const name = h('input', { name: 'signal-name', value: defaultName ?? '', required: true });
  const data = h('textarea', { name: 'signal-data', rows: 4 }, '{}');
  return {
    body: [h('label.field', {}, `${kind} name`, name), h('label.field', {}, 'data (JSON)', data)],
    run: async () => {
      let value;
      try {
        value = data.value.trim() === '' ? null : JSON.parse(data.value);
      } catch (e) {
        throw new Error(`data is not JSON: ${e.message}`);
      }
      return post(`/api/jobs/${encodeURIComponent(jobId)}/${kind}`, {
        name: name.value,
        data: value,
      });
    },
  };
}
