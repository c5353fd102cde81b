"""Batch jobs that fake backends in the engine tests keep in memory."""


def keep_job(jobs: dict, submits: list, queries) -> str:
    """Store a batch's queries under the next job id (job-1, job-2, ...), note the submission, return the id."""
    job_id = f"job-{len(jobs) + 1}"
    jobs[job_id] = list(queries)
    submits.append(job_id)
    return job_id
