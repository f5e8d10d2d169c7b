// The template half loaded on first use (dist/templates.js): the create flow, template
// validation, New Template and template secrets. Registration stays in the activation bundle.
export { createFromTemplate, keepWatching, rentOffer } from './createFromTemplate';
export { newTemplate } from './newTemplate';
export { setTemplateSecret } from './setTemplateSecret';
export { loadTemplateUri } from './workspace';
